#!/usr/bin/env bash
# The plain shim h12-bwd80d timed: bench/sm80_bwd_timeline_build.sh (no timeline build) on
# build-h12bwd80d/shimtree (HEAD's tables + the MaskedPerItemPhaseBAddresses option and its
# kernel lines; shim variant 251)
# and this checkout's shim.
set -euo pipefail
cd "$(dirname "$0")/../../.."
SM80_SOURCE_ROOT=build-h12bwd80d/shimtree SM80_SHIMS=plain \
  bench/sm80_bwd_timeline_build.sh build-h12bwd80d/tl 90a "${1:-1}"
