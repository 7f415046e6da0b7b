#!/bin/bash
# Builds the carry of call-command.sh, build-h11d/carry/shims.tar.xz: bench/sm90_timeline_shim.cu
# without the timeline (bf16 D = 64 / 128 / 256 instances, as h11-fwd90b/c's calls) from three
# source trees under build-h11d/trees: cur = `git archive <commit>` (default 134511b, the HEAD
# the candidates were written on), g33 and c128 = the same with candidate-<name>.patch applied.
# ptxas reports in build-h11d/shims/<name>/ptxas.log (the candidates change host code only).
#   bash bench/results/sm90-fwd-h100-2026-11-23-s11d/build-shims.sh [commit] [jobs (default 2)]
set -euo pipefail
cd "$(dirname "$0")/../../.."
R=bench/results/sm90-fwd-h100-2026-11-23-s11d
B=build-h11d
commit=${1:-134511b}
jobs=${2:-2}
source bench/shim_build_common.sh
rm -rf $B/trees $B/shims $B/stage
for v in cur g33 c128; do
  mkdir -p $B/trees/$v
  git archive "$commit" src include tests/cuda/test_sm90_forward.cpp | tar -x -C $B/trees/$v
  if [ $v != cur ]; then (cd $B/trees/$v && patch -s -p1 < "../../../$R/candidate-$v.patch"); fi
done
mkdir -p $B/stage $B/carry
for v in cur g33 c128; do
  root=$PWD/$B/trees/$v
  flags=(-std=c++20 -O3 -lineinfo "-I$root/src" "-I$root/include" -Ibench --expt-relaxed-constexpr
         -Xcompiler -fPIC "-gencode=arch=compute_90a,code=sm_90a" -Xptxas -v)
  build_shim $B/shims/$v "$jobs" libsm90timeline.so "${flags[*]}" \
    "$root/src/cuda/instantiations/sm90_fwd_d64_bf16.cu" \
    "$root/src/cuda/instantiations/sm90_fwd_d128_bf16.cu" \
    "$root/src/cuda/instantiations/sm90_fwd_d256_bf16.cu" \
    "$root/src/cuda/sm90/tensor_map.cu" "$root/src/api/types.cpp" bench/sm90_timeline_shim.cu
  cp $B/shims/$v/libsm90timeline.so $B/stage/$v.so
done
tar -cJf $B/carry/shims.tar.xz -C $B/stage cur.so g33.so c128.so
rm -rf $B/stage
ls -la $B/carry
