#!/usr/bin/env bash
# ptxas -v and objects of the sm80 backward instantiations, this checkout's (cand) and HEAD's
# (git archive HEAD src include into build-h12bwd80d/head): cand bf16 + fp16 on sm_90a and
# sm_80, HEAD bf16 on sm_90a (bench/sass_compare.py compares the bf16 sm_90a objects kernel by kernel).
set -uo pipefail
cd /work/main
export PATH=/usr/local/cuda/bin:$PATH
out=build-h12bwd80d/chk; mkdir -p $out
flags="-std=c++20 -O3 -lineinfo --expt-relaxed-constexpr -Xcompiler -fPIC -Xptxas -v"
jobs=()
for d in 64 128 256; do
  for t in bf16 fp16; do jobs+=("cand $d $t 90a" "cand $d $t 80"); done
  jobs+=("head $d bf16 90a")
done
printf '%s\n' "${jobs[@]}" | xargs -P 2 -L 1 sh -c '
  root=.; [ $0 = head ] && root=build-h12bwd80d/head
  nvcc '"$flags"' -I$root/src -I$root/include -gencode=arch=compute_$3,code=sm_$3 \
    -c $root/src/cuda/instantiations/sm80_bwd_d$1_$2.cu -o '"$out"'/$0_d$1_$2_$3.o \
    > '"$out"'/$0_d$1_$2_$3.ptxas 2>&1; echo "$0 d$1 $2 sm_$3 rc $?"'
