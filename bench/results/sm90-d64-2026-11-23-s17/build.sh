#!/bin/bash
# h17-d64f: builds the D = 64 timing shims of call.sh: cur and each candidate-<name>.patch of this
# directory, by bench/sm90_candidates_build.sh with SHIM_BUCKET=64 (see there). Run from the
# repository root; this directory may be anywhere (e.g. carried in the build dir). Leaves
# <build>/carry/shims.tar.xz. Usage:
#   bash bench/results/sm90-d64-2026-11-23-s17/build.sh \
#     <build dir> <commit|worktree> <jobs> [candidate...]
# (default candidates: m128 m256)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
B=$1 commit=$2 jobs=$3
shift 3
cands=("$@")
[ ${#cands[@]} -gt 0 ] || cands=(m128 m256)
SHIM_BUCKET=64 exec bash bench/sm90_candidates_build.sh "$HERE" "$B" "$commit" "$jobs" "${cands[@]}"
