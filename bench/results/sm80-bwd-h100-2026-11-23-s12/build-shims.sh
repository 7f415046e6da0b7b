#!/usr/bin/env bash
# Same flags as bench/sm80_bwd_timeline_build.sh, but plain first (ptxas check), then timeline.
set -euo pipefail
cd /work/main
out=build-h12bwd80/tl; arch=90a; jobs=2; root=build-h12bwd80/tree-head
source bench/shim_build_common.sh
flags=(-std=c++20 -O3 -lineinfo "-I$root/src" "-I$root/include" -Ibench --expt-relaxed-constexpr
       -Xcompiler -fPIC "-gencode=arch=compute_${arch},code=sm_${arch}" -Xptxas -v)
sources=("$root/src/cuda/instantiations/sm80_bwd_d64_bf16.cu"
         "$root/src/cuda/instantiations/sm80_bwd_d128_bf16.cu"
         "$root/src/cuda/instantiations/sm80_bwd_d256_bf16.cu" bench/sm80_bwd_timeline_shim.cu)
if [ "${1:-plain}" = plain ]; then
  build_shim "$out/plain" "$jobs" libsm80bwdtimeline.so "${flags[*]}" "${sources[@]}"
else
  build_shim "$out/timeline" "$jobs" libsm80bwdtimeline.so "${flags[*]} -DFATTN_SM80_BWD_TIMELINE" "${sources[@]}"
fi
