#!/bin/bash
# Builds the carry of a Hopper-forward candidate call (bench/sm90_candidates_call.sh and the
# results folders' call.sh): one timing shim per contestant, each from its own source tree under
# <build>/trees: cur = `git archive <commit>` (with <commit> "worktree": the checkout's own
# src/include, no git needed, as on the device), each candidate the same with
# <results>/candidate-<name>.patch applied. Two shim forms:
# - default: bench/sm90_timeline_shim.cu without the timeline, from the bf16 D = 64 / 128 / 256
#   instances (libsm90timeline.so, as h11-fwd90b's call 2);
# - SHIM_BUCKET=<D>: bench/sm90_shim.cu built for that head-dim bucket alone
#   (-DFATTN_SHIM_SM90_BUCKET), from its bf16 and fp16 instances (libd<D>.so).
# KEEP_CUR=1 reuses <build>/shims/cur (built before from the same commit). With <jobs> <= 2 (the
# desk) one contestant at a time, otherwise all at once (the device's fallback builds). ptxas
# reports in <build>/shims/<name>/ptxas.log (a spill / C75xx line per contestant is printed).
# Leaves <build>/carry/shims.tar.xz (<name>.so for each contestant).
#   bash bench/sm90_candidates_build.sh <results dir> <build dir> <commit> <jobs> <candidate>...
set -euo pipefail
cd "$(dirname "$0")/.."
R=$(cd "$1" && pwd)
mkdir -p "$2"
B=$(cd "$2" && pwd) commit=$3 jobs=$4
shift 4
contestants=(cur "$@")
build=("${contestants[@]}")
[ "${KEEP_CUR:-0}" = 1 ] && build=("$@")
bucket=${SHIM_BUCKET:-}
source bench/shim_build_common.sh
rm -rf "$B/stage"
for v in "${build[@]}"; do
  rm -rf "$B/trees/$v" "$B/shims/$v"
  mkdir -p "$B/trees/$v"
  if [ "$commit" = worktree ]; then cp -r src include "$B/trees/$v/"
  else git archive "$commit" src include | tar -x -C "$B/trees/$v"; fi
  if [ "$v" != cur ]; then patch -s -p1 -d "$B/trees/$v" < "$R/candidate-$v.patch"; fi
done
mkdir -p "$B/stage" "$B/carry" "$B/shims"
if [ -n "$bucket" ]; then library=libd$bucket.so; else library=libsm90timeline.so; fi
pids=()
for v in "${build[@]}"; do
  root=$B/trees/$v
  flags=(-std=c++20 -O3 -lineinfo "-I$root/src" "-I$root/include" -Ibench --expt-relaxed-constexpr
         -Xcompiler -fPIC "-gencode=arch=compute_90a,code=sm_90a" -Xptxas -v)
  if [ -n "$bucket" ]; then
    flags+=("-DFATTN_SHIM_SM90_BUCKET=$bucket")
    sources=("$root/src/cuda/instantiations/sm90_fwd_d${bucket}_bf16.cu"
             "$root/src/cuda/instantiations/sm90_fwd_d${bucket}_fp16.cu" "$PWD/bench/sm90_shim.cu")
  else
    sources=("$root/src/cuda/instantiations/sm90_fwd_d64_bf16.cu"
             "$root/src/cuda/instantiations/sm90_fwd_d128_bf16.cu"
             "$root/src/cuda/instantiations/sm90_fwd_d256_bf16.cu"
             "$PWD/bench/sm90_timeline_shim.cu")
  fi
  build_shim "$B/shims/$v" "$jobs" "$library" "${flags[*]}" "${sources[@]}" \
    "$root/src/cuda/sm90/tensor_map.cu" "$root/src/api/types.cpp" > "$B/shims/$v.build.log" 2>&1 &
  pids+=($!)
  if [ "$jobs" -le 2 ]; then wait "${pids[-1]}"; fi
done
for pid in "${pids[@]}"; do wait "$pid"; done
for v in "${contestants[@]}"; do
  cat "$B/shims/$v.build.log" 2>/dev/null || true
  spills=$(grep -c 'bytes spill' "$B/shims/$v/ptxas.log" || true)
  nonzero=$(grep 'bytes spill' "$B/shims/$v/ptxas.log" |
            grep -vc ' 0 bytes spill stores, 0 bytes spill loads' || true)
  c75=$(grep -c 'C75' "$B/shims/$v/ptxas.log" || true)
  echo "$v: $spills kernels, $nonzero with spills; C75xx warnings: $c75"
  cp "$B/shims/$v/$library" "$B/stage/$v.so"
done
tar -cJf "$B/carry/shims.tar.xz" -C "$B/stage" "${contestants[@]/%/.so}"
rm -rf "$B/stage"
ls -la "$B/carry"
