#!/bin/bash
# h17-n512: builds the timing shims of call.sh, one source tree per contestant under
# <build>/trees (cur = `git archive <commit>` or, with <commit> "worktree", the checkout's own
# src/include; each candidate = cur + candidate-<name>.patch of this directory), each compiled
# into <name>.so from the bf16 D = 64 / 128 / 256 instantiation TUs, tensor_map.cu, types.cpp and
# bench/sm90_timeline_shim.cu without the timeline macro (as bench/sm90_candidates_build.sh).
# ptxas reports in <build>/shims/<name>/ptxas.log. Leaves <build>/carry/shims.tar.xz.
# KEEP_CUR=1 reuses <build>/shims/cur/libsm90timeline.so (built before from the same commit).
#   bash bench/results/sm90-n512-2026-11-23-s17/build.sh <build dir> <commit> <jobs> [candidate...]
# (default candidates: pf pfa pfs)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
B=$1 commit=$2 jobs=$3
mkdir -p "$B"; B=$(cd "$B" && pwd)
shift 3
cands=("$@")
[ ${#cands[@]} -gt 0 ] || cands=(pf pfa pfs)
contestants=(cur "${cands[@]}")
build=("${contestants[@]}")
[ "${KEEP_CUR:-0}" = 1 ] && build=("${cands[@]}")
source bench/shim_build_common.sh
rm -rf "$B/stage"
for v in "${build[@]}"; do
  rm -rf "$B/trees/$v" "$B/shims/$v"
  mkdir -p "$B/trees/$v"
  if [ "$commit" = worktree ]; then cp -r src include "$B/trees/$v/"
  else git archive "$commit" src include | tar -x -C "$B/trees/$v"; fi
  if [ "$v" != cur ]; then patch -s -p1 -d "$B/trees/$v" < "$HERE/candidate-$v.patch"; fi
done
mkdir -p "$B/stage" "$B/carry" "$B/shims"
# One contestant at a time where few cores (jobs <= 2, as at the desk); all at once otherwise
# (the device's fallback: 4 contestants x 6 sources on 16 cores).
pids=()
for v in "${build[@]}"; do
  root=$B/trees/$v
  flags=(-std=c++20 -O3 -lineinfo "-I$root/src" "-I$root/include" -Ibench --expt-relaxed-constexpr
         -Xcompiler -fPIC "-gencode=arch=compute_90a,code=sm_90a" -Xptxas -v)
  build_shim "$B/shims/$v" "$jobs" libsm90timeline.so "${flags[*]}" \
    "$root/src/cuda/instantiations/sm90_fwd_d128_bf16.cu" \
    "$root/src/cuda/instantiations/sm90_fwd_d256_bf16.cu" \
    "$root/src/cuda/instantiations/sm90_fwd_d64_bf16.cu" \
    "$root/src/cuda/sm90/tensor_map.cu" "$root/src/api/types.cpp" \
    "$PWD/bench/sm90_timeline_shim.cu" > "$B/shims/$v.build.log" 2>&1 &
  pids+=($!)
  if [ "$jobs" -le 2 ]; then wait "${pids[-1]}"; fi
done
for pid in "${pids[@]}"; do wait "$pid"; done
for v in "${contestants[@]}"; do
  cat "$B/shims/$v.build.log" 2>/dev/null || true
  spills=$(grep -c 'bytes spill' "$B/shims/$v/ptxas.log" || true)
  nonzero=$(grep 'bytes spill' "$B/shims/$v/ptxas.log" | grep -vc ' 0 bytes spill stores, 0 bytes spill loads' || true)
  echo "$v: $spills kernels, $nonzero with spills; C75xx warnings: $(grep -c 'C75' "$B/shims/$v/ptxas.log" || true)"
  cp "$B/shims/$v/libsm90timeline.so" "$B/stage/$v.so"
done
tar -cJf "$B/carry/shims.tar.xz" -C "$B/stage" "${contestants[@]/%/.so}"
rm -rf "$B/stage"
ls -la "$B/carry"
