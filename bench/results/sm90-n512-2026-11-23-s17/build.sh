#!/bin/bash
# h17-n512: builds the timing shims of call.sh (bf16 D = 64 / 128 / 256, the timeline shim without
# its macro; KEEP_CUR passes through): cur and each candidate-<name>.patch of this directory, by
# bench/sm90_candidates_build.sh (see there). Run from the repository root; this directory may be
# anywhere (e.g. carried in the build dir). Leaves <build>/carry/shims.tar.xz. Usage:
#   bash bench/results/sm90-n512-2026-11-23-s17/build.sh \
#     <build dir> <commit|worktree> <jobs> [candidate...]
# (default candidates: pf pfa pfs)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
B=$1 commit=$2 jobs=$3
shift 3
cands=("$@")
[ ${#cands[@]} -gt 0 ] || cands=(pf pfa pfs)
exec bash bench/sm90_candidates_build.sh "$HERE" "$B" "$commit" "$jobs" "${cands[@]}"
