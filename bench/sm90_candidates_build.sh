#!/bin/bash
# Builds the carry of bench/sm90_candidates_call.sh: host-side candidates of the Hopper forward as
# timing shims, bench/sm90_timeline_shim.cu without the timeline (bf16 D = 64 / 128 / 256
# instances, as h11-fwd90b's call 2), from one source tree per contestant under <build>/trees:
# cur = `git archive <commit>`, each candidate the same with <results>/candidate-<name>.patch
# applied. ptxas reports in <build>/shims/<name>/ptxas.log (compare them: the candidates are meant
# to change host code only). Leaves <build>/carry/shims.tar.xz (<name>.so for each contestant).
#   bash bench/sm90_candidates_build.sh <results dir> <build dir> <commit> <jobs> <candidate>...
set -euo pipefail
cd "$(dirname "$0")/.."
R=$1 B=$2 commit=$3 jobs=$4
shift 4
contestants=(cur "$@")
source bench/shim_build_common.sh
rm -rf "$B/trees" "$B/shims" "$B/stage"
for v in "${contestants[@]}"; do
  mkdir -p "$B/trees/$v"
  git archive "$commit" src include tests/cuda/test_sm90_forward.cpp | tar -x -C "$B/trees/$v"
  if [ "$v" != cur ]; then patch -s -p1 -d "$B/trees/$v" < "$R/candidate-$v.patch"; fi
done
mkdir -p "$B/stage" "$B/carry"
for v in "${contestants[@]}"; do
  root=$PWD/$B/trees/$v
  flags=(-std=c++20 -O3 -lineinfo "-I$root/src" "-I$root/include" -Ibench --expt-relaxed-constexpr
         -Xcompiler -fPIC "-gencode=arch=compute_90a,code=sm_90a" -Xptxas -v)
  build_shim "$B/shims/$v" "$jobs" libsm90timeline.so "${flags[*]}" \
    "$root/src/cuda/instantiations/sm90_fwd_d64_bf16.cu" \
    "$root/src/cuda/instantiations/sm90_fwd_d128_bf16.cu" \
    "$root/src/cuda/instantiations/sm90_fwd_d256_bf16.cu" \
    "$root/src/cuda/sm90/tensor_map.cu" "$root/src/api/types.cpp" bench/sm90_timeline_shim.cu
  cp "$B/shims/$v/libsm90timeline.so" "$B/stage/$v.so"
done
tar -cJf "$B/carry/shims.tar.xz" -C "$B/stage" "${contestants[@]/%/.so}"
rm -rf "$B/stage"
ls -la "$B/carry"
