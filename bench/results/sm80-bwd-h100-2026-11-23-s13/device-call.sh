#!/bin/bash
# h13-bwd80's device call: the s13 preset of bench/sm80_bwd_snapshot_call.sh (its header lists the steps).
exec bash "$(dirname "$0")/../../sm80_bwd_snapshot_call.sh" s13 "$@"
