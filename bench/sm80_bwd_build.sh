#!/usr/bin/env bash
# Builds the shim of bench/sm80_bwd_compare.py (bench/sm80_shim.cu with the generated sm80
# instances and the backward's variants, bench/sm80_bwd_variants.cu) into <dir>/libsm80shim.so;
# the forward's variants are replaced by bench/sm80_bwd_no_fwd_variants.cu (the comparisons run
# the table's forward only), which takes the slowest file out of the build. ptxas reports go to
# <dir>/ptxas.log. SM80_NVCC_FLAGS adds nvcc flags.
#   bench/sm80_bwd_build.sh <dir> [arch (default 90a)] [jobs (default nproc)]
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: bench/sm80_bwd_build.sh <dir> [arch] [jobs]}"
arch="${2:-90a}"
jobs="${3:-$(nproc)}"
source bench/shim_build_common.sh
flags=(-std=c++20 -O3 -lineinfo -Isrc -Iinclude --expt-relaxed-constexpr -Xcompiler -fPIC
       "-gencode=arch=compute_${arch},code=sm_${arch}" -Xptxas -v ${SM80_NVCC_FLAGS:-})
build_shim "$out" "$jobs" libsm80shim.so "${flags[*]}" bench/sm80_bwd_no_fwd_variants.cu \
  bench/sm80_bwd_variants.cu src/cuda/instantiations/sm80_*.cu bench/sm80_shim.cu
