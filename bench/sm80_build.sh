#!/usr/bin/env bash
# Builds bench/sm80_shim.cu with the generated sm80 instances into <dir>/libsm80shim.so, for
# bench/sm80_vs_torch.py, without configuring the whole library. One nvcc per instance, in
# parallel; ptxas resource reports go to <dir>/ptxas.log.
#   bench/sm80_build.sh <dir> [arch (default 90a)] [jobs (default nproc)]
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: bench/sm80_build.sh <dir> [arch] [jobs]}"
arch="${2:-90a}"
jobs="${3:-$(nproc)}"
mkdir -p "$out"
flags=(-std=c++20 -O3 -lineinfo -Isrc -Iinclude --expt-relaxed-constexpr -Xcompiler -fPIC
       "-gencode=arch=compute_${arch},code=sm_${arch}" -Xptxas -v)
sources=(bench/sm80_variants.cu bench/sm80_bwd_variants.cu src/cuda/instantiations/sm80_*.cu
         bench/sm80_shim.cu)
printf '%s\n' "${sources[@]}" | xargs -P "$jobs" -I{} sh -c \
  'f={}; o='"$out"'/$(basename "$f" .cu).o; /usr/bin/time -f "$f %e s" nvcc '"${flags[*]}"' -c "$f" -o "$o" 2>"$o.log" || { cat "$o.log"; exit 1; }'
cat "$out"/*.o.log > "$out/ptxas.log"
grep ' s$' "$out/ptxas.log" || true
nvcc -shared -o "$out/libsm80shim.so" "$out"/*.o -lcudart
echo "built $out/libsm80shim.so"
