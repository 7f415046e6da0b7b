#!/usr/bin/env bash
# Builds bench/sm90_bwd_variants.cu into <dir>/libsm90bwdvariants.so for
# bench/sm90_bwd_variants.py: one nvcc process per variant (-DFATTN_BWD_VARIANT=i, in parallel),
# one for the entry points, plus the library sources the launch code calls (tensor maps, types).
# ptxas resource reports (registers, spills) go to <dir>/ptxas.log, one .o.log per source.
#   bench/sm90_bwd_variants_build.sh <dir> [jobs (default nproc)]
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: bench/sm90_bwd_variants_build.sh <dir> [jobs]}"
jobs="${2:-$(nproc)}"
mkdir -p "$out"
flags="-std=c++20 -O3 -lineinfo -Isrc -Iinclude -Ibench --expt-relaxed-constexpr -Xcompiler -fPIC
  -gencode=arch=compute_90a,code=sm_90a -Xptxas -v"
count=$(grep -c '^    {"d' bench/sm90_bwd_variants.cu)
{
  for i in $(seq 0 $((count - 1))); do
    echo "bench/sm90_bwd_variants.cu variant_$i -DFATTN_BWD_VARIANT=$i"
  done
  echo "bench/sm90_bwd_variants.cu entry"
  echo "src/cuda/sm90/tensor_map.cu tensor_map"
  echo "src/api/types.cpp types"
} | xargs -P "$jobs" -L 1 sh -c \
  'o='"$out"'/$1.o; /usr/bin/time -f "$1 %e s" nvcc '"$(echo $flags)"' -x cu $2 -c $0 -o $o 2>$o.log || { cat $o.log; exit 1; }'
cat "$out"/*.o.log > "$out/ptxas.log"
grep ' s$' "$out/ptxas.log" || true
grep -E "spill|C75[0-9][0-9]" "$out/ptxas.log" | sort | uniq -c || true
nvcc -shared -o "$out/libsm90bwdvariants.so" "$out"/*.o -lcudart
echo "built $out/libsm90bwdvariants.so ($count variants)"
