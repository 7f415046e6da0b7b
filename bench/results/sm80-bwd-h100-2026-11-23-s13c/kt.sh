#!/bin/bash
# usage: kt.sh ROOT TAG ARCH ELEM VARIANT...   (compiles kt.cu once per variant, prints spills)
root=$1; tag=$2; a=$3; e=$4; shift 4
d=/work/main/build-h13bwd80c
for v in "$@"; do
  nvcc -std=c++20 -O3 -I$root/src -I$root/include --expt-relaxed-constexpr -Xcompiler -fPIC \
    -gencode=arch=compute_$a,code=sm_$a -Xptxas -v -DKT_$v -DKT_ELEM=$e $KTFLAGS -c $d/kt.cu \
    -o $d/kt_${tag}_${v}_${a}_$e.o > $d/kt_${tag}_${v}_${a}_$e.ptxas 2>&1
  echo "$tag $v sm_$a $e: $(grep -A2 "backward_kernel" $d/kt_${tag}_${v}_${a}_$e.ptxas | grep -o '[0-9]* bytes spill stores\|Used [0-9]* registers' | tr '\n' ' ')"
done
