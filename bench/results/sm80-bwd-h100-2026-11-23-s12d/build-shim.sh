#!/usr/bin/env bash
# The plain shim of bench/sm80_bwd_timeline_build.sh (same flags, no timeline build), from
# build-h12bwd80d/shimtree (HEAD's tables + the MaskedPerItemPhaseBAddresses option and its
# kernel lines) and this checkout's shim (variant 251).
set -euo pipefail
cd /work/main
export PATH=/usr/local/cuda/bin:$PATH
out=build-h12bwd80d/tl; arch=90a; jobs=${1:-1}; root=build-h12bwd80d/shimtree
source bench/shim_build_common.sh
flags=(-std=c++20 -O3 -lineinfo "-I$root/src" "-I$root/include" -Ibench --expt-relaxed-constexpr
       -Xcompiler -fPIC "-gencode=arch=compute_${arch},code=sm_${arch}" -Xptxas -v)
sources=("$root/src/cuda/instantiations/sm80_bwd_d64_bf16.cu"
         "$root/src/cuda/instantiations/sm80_bwd_d128_bf16.cu"
         "$root/src/cuda/instantiations/sm80_bwd_d256_bf16.cu" bench/sm80_bwd_timeline_shim.cu)
build_shim "$out/plain" "$jobs" libsm80bwdtimeline.so "${flags[*]}" "${sources[@]}"
