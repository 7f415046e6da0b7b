#!/bin/bash
# Builds the D = 64 timing shims of call.sh: one source tree per contestant under <build>/trees
# (cur = `git archive <commit>`, each candidate the same with candidate-<name>.patch of this
# directory applied), each compiled into <name>.so from the two d64 instantiation TUs
# (bf16, fp16; sm_90a), tensor_map.cu, types.cpp and bench/sm90_shim.cu built for the 192
# bucket alone (-DFATTN_SHIM_SM90_BUCKET=64). ptxas reports in
# <build>/shims/<name>/ptxas.log. Leaves <build>/carry/shims.tar.xz.
#   bash bench/results/sm90-d64-2026-11-23-s17/build.sh <build dir> <commit> <jobs> [candidate...]
# (default candidates: m128 m256)
set -euo pipefail
# Run from the repository root; this directory may be anywhere (e.g. carried in the build dir).
# <commit> "worktree": cur is the checkout's own src/include (no git needed, as on the device).
HERE=$(cd "$(dirname "$0")" && pwd)
B=$1 commit=$2 jobs=$3
mkdir -p "$B"; B=$(cd "$B" && pwd)
shift 3
cands=("$@")
[ ${#cands[@]} -gt 0 ] || cands=(m128 m256)
contestants=(cur "${cands[@]}")
source bench/shim_build_common.sh
rm -rf "$B/trees" "$B/shims" "$B/stage"
for v in "${contestants[@]}"; do
  mkdir -p "$B/trees/$v"
  if [ "$commit" = worktree ]; then cp -r src include "$B/trees/$v/"
  else git archive "$commit" src include | tar -x -C "$B/trees/$v"; fi
  if [ "$v" != cur ]; then patch -s -p1 -d "$B/trees/$v" < "$HERE/candidate-$v.patch"; fi
done
mkdir -p "$B/stage" "$B/carry" "$B/shims"
# All contestants' TUs in one parallel pass (build_shim runs one nvcc per source).
pids=()
for v in "${contestants[@]}"; do
  root=$B/trees/$v
  flags=(-std=c++20 -O3 -lineinfo "-I$root/src" "-I$root/include" -Ibench --expt-relaxed-constexpr
         -Xcompiler -fPIC "-gencode=arch=compute_90a,code=sm_90a" -Xptxas -v
         -DFATTN_SHIM_SM90_BUCKET=64)
  build_shim "$B/shims/$v" "$jobs" libd64.so "${flags[*]}" \
    "$root/src/cuda/instantiations/sm90_fwd_d64_bf16.cu" \
    "$root/src/cuda/instantiations/sm90_fwd_d64_fp16.cu" \
    "$root/src/cuda/sm90/tensor_map.cu" "$root/src/api/types.cpp" "$PWD/bench/sm90_shim.cu" \
    > "$B/shims/$v.build.log" 2>&1 &
  pids+=($!)
  # Serial where few cores (jobs <= 2): one contestant at a time.
  if [ "$jobs" -le 2 ]; then wait "${pids[-1]}"; fi
done
for pid in "${pids[@]}"; do wait "$pid"; done
for v in "${contestants[@]}"; do
  cat "$B/shims/$v.build.log"
  spills=$(grep -c 'bytes spill' "$B/shims/$v/ptxas.log" || true)
  nonzero=$(grep 'bytes spill' "$B/shims/$v/ptxas.log" | grep -vc ' 0 bytes spill stores, 0 bytes spill loads' || true)
  echo "$v: $spills kernels, $nonzero with spills; C75xx warnings: $(grep -c 'C75' "$B/shims/$v/ptxas.log" || true)"
  cp "$B/shims/$v/libd64.so" "$B/stage/$v.so"
done
tar -cJf "$B/carry/shims.tar.xz" -C "$B/stage" "${contestants[@]/%/.so}"
rm -rf "$B/stage"
ls -la "$B/carry"
