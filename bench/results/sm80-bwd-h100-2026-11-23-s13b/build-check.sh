#!/bin/bash
# h13-bwd80b's compile check, usage: build-check.sh ROOT OUTDIR D TYPE ARCH (see the shared tool's `check`).
exec bash "$(dirname "$0")/../../sm80_bwd_snapshot_call.sh" check s13b "$@"
