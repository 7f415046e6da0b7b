#!/usr/bin/env bash
# The shims h12-bwd80 timed: bench/sm80_bwd_timeline_build.sh on a worktree of HEAD 2fefb77
# (build-h12bwd80/tree-head), plain first (its ptxas report is the spill check), then timeline.
set -euo pipefail
cd "$(dirname "$0")/../../.."
SM80_SOURCE_ROOT=build-h12bwd80/tree-head SM80_SHIMS="${1:-both}" \
  bench/sm80_bwd_timeline_build.sh build-h12bwd80/tl 90a 2
