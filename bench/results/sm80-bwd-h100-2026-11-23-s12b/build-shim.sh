#!/usr/bin/env bash
# The plain shim h12-bwd80b timed: bench/sm80_bwd_timeline_build.sh (no timeline build) on
# build-h12bwd80b/shimtree (HEAD's tables + UnmaskedStagedEpilogue)
# and this checkout's shim.
set -euo pipefail
cd "$(dirname "$0")/../../.."
SM80_SOURCE_ROOT=build-h12bwd80b/shimtree SM80_SHIMS=plain \
  bench/sm80_bwd_timeline_build.sh build-h12bwd80b/tl 90a "${1:-1}"
