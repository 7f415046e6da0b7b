#!/usr/bin/env bash
# The plain shim h12-bwd80c timed: bench/sm80_bwd_timeline_build.sh (no timeline build) on
# build-h12bwd80c/shimtree (HEAD's tables + the DeterministicUnmaskedHeadGroups option and its
# kernel lines; shim variants 241 / 242)
# and this checkout's shim.
set -euo pipefail
cd "$(dirname "$0")/../../.."
SM80_SOURCE_ROOT=build-h12bwd80c/shimtree SM80_SHIMS=plain \
  bench/sm80_bwd_timeline_build.sh build-h12bwd80c/tl 90a "${1:-1}"
