#!/usr/bin/env bash
# ptxas -v and objects of this checkout's sm80 backward instantiations (bf16 + fp16 on sm_90a,
# bf16 on sm_80) for the spill and SASS checks (bench/sass_compare.py against build-shim.sh's objects,
# which are HEAD's tables).
set -uo pipefail
cd /work/main
out=build-h12bwd80c/chk
flags="-std=c++20 -O3 -lineinfo -Isrc -Iinclude --expt-relaxed-constexpr -Xcompiler -fPIC -Xptxas -v"
jobs=()
for d in 64 128 256; do for t in bf16 fp16; do jobs+=("$d $t 90a"); done; jobs+=("$d bf16 80"); done
printf '%s\n' "${jobs[@]}" | xargs -P 2 -L 1 sh -c 'nvcc '"$flags"' -gencode=arch=compute_$2,code=sm_$2 -c src/cuda/instantiations/sm80_bwd_d$0_$1.cu -o '"$out"'/d$0_$1_$2.o > '"$out"'/d$0_$1_$2.ptxas 2>&1; echo "d$0 $1 sm_$2 rc $?"'
