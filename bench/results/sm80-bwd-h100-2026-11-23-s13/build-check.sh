#!/bin/bash
# h13-bwd80's ptxas -v and objects (build-h13bwd80/chk): `check s13 [PARALLEL]` of the shared tool.
exec bash "$(dirname "$0")/../../sm80_bwd_snapshot_call.sh" check s13 "$@"
