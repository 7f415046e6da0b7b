#!/usr/bin/env bash
# Builds bench/sm80_shim.cu with the generated sm80 instances into <dir>/libsm80shim.so, for
# bench/sm80_vs_torch.py, without configuring the whole library. One nvcc per instance, in
# parallel; ptxas resource reports go to <dir>/ptxas.log. SM80_NVCC_FLAGS adds nvcc flags;
# SM80_FWD_VARIANTS replaces the forward's variants file (bench/sm80_bwd_build.sh uses it).
#   bench/sm80_build.sh <dir> [arch (default 90a)] [jobs (default nproc)]
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: bench/sm80_build.sh <dir> [arch] [jobs]}"
arch="${2:-90a}"
jobs="${3:-$(nproc)}"
source bench/shim_build_common.sh
flags=(-std=c++20 -O3 -lineinfo -Isrc -Iinclude --expt-relaxed-constexpr -Xcompiler -fPIC
       "-gencode=arch=compute_${arch},code=sm_${arch}" -Xptxas -v ${SM80_NVCC_FLAGS:-})
# The forward's variants: bench/sm80_variants.cu and its odd-head-dim tiles (a file of their own,
# compiled in parallel), or SM80_FWD_VARIANTS alone.
forward_variants=(bench/sm80_variants.cu bench/sm80_odd_variants.cu)
[ -z "${SM80_FWD_VARIANTS:-}" ] || forward_variants=("$SM80_FWD_VARIANTS")
build_shim "$out" "$jobs" libsm80shim.so "${flags[*]}" "${forward_variants[@]}" \
  bench/sm80_bwd_variants.cu src/cuda/instantiations/sm80_*.cu bench/sm80_shim.cu
