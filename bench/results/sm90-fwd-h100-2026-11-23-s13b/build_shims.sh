#!/bin/bash
# h13-fwd90b: timing shims (bench/sm90_timeline_shim.cu without the timeline) for cur = HEAD and
# each candidate patch; only the D = 256 bf16 TU differs between contestants, the others are
# cur's objects (so the D = 64 / 128 kernels are the same binary code in every shim).
set -euo pipefail
cd /work/main
R=bench/results/sm90-fwd-h100-2026-11-23-s13b B=build-h13fwd90b/shims
commit=$1; shift
rm -rf $B; mkdir -p $B/stage build-h13fwd90b/carry
flags() { echo "-std=c++20 -O3 -lineinfo -I$1/src -I$1/include -Ibench --expt-relaxed-constexpr -Xcompiler -fPIC -gencode=arch=compute_90a,code=sm_90a -Xptxas -v"; }
for v in cur "$@"; do
  mkdir -p $B/trees/$v $B/obj/$v
  git archive "$commit" src include | tar -x -C $B/trees/$v
  [ $v != cur ] && patch -s -p1 -d $B/trees/$v < $R/candidate-$v.patch
done
root=$PWD/$B/trees/cur
srcs="$root/src/cuda/instantiations/sm90_fwd_d64_bf16.cu $root/src/cuda/instantiations/sm90_fwd_d128_bf16.cu $root/src/cuda/instantiations/sm90_fwd_d256_bf16.cu $root/src/cuda/sm90/tensor_map.cu $root/src/api/types.cpp bench/sm90_timeline_shim.cu"
jobs=()
for f in $srcs; do echo "$f"; done > $B/cur.list
for v in "$@"; do echo "$PWD/$B/trees/$v/src/cuda/instantiations/sm90_fwd_d256_bf16.cu $v"; done > $B/cand.list
# all compiles, 2 at a time
( while read f; do echo "cur $f"; done < $B/cur.list; while read f v; do echo "$v $f"; done < $B/cand.list ) | \
  xargs -P 2 -L 1 sh -c 'v=$0 f=$1; root=$PWD/'$B'/trees/$v; o='$B'/obj/$v/$(basename $f | sed "s/\.\(cu\|cpp\)$//").o; nvcc -std=c++20 -O3 -lineinfo -I$root/src -I$root/include -Ibench --expt-relaxed-constexpr -Xcompiler -fPIC -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -c $f -o $o > $o.log 2>&1 || { cat $o.log; exit 1; }; echo "done $v $(basename $f)"'
nvcc -shared -o $B/stage/cur.so $B/obj/cur/*.o -lcudart
for v in "$@"; do
  objs=$(ls $B/obj/cur/*.o | grep -v sm90_fwd_d256_bf16)
  nvcc -shared -o $B/stage/$v.so $objs $B/obj/$v/sm90_fwd_d256_bf16.o -lcudart
done
grep -h 'spill' $B/obj/*/sm90_fwd_d256_bf16.o.log | sort | uniq -c
( cd $B/stage && tar -cJf ../../carry/shims.tar.xz cur.so "${@/%/.so}" )
ls -la build-h13fwd90b/carry
