#!/bin/bash
# h13-fwd90b: FATTN_SM90_TIMELINE shims (bench/sm90_timeline_shim.cu) for cur and candidates:
# the instrumented D = 256 bf16 TU per contestant, the other objects cur's (instrumented).
set -euo pipefail
cd /work/main
B=build-h13fwd90b/shims T=build-h13fwd90b/tl
rm -rf $T; mkdir -p $T/stage
root=$PWD/$B/trees/cur
( for f in $root/src/cuda/instantiations/sm90_fwd_d64_bf16.cu $root/src/cuda/instantiations/sm90_fwd_d128_bf16.cu $root/src/cuda/sm90/tensor_map.cu $root/src/api/types.cpp bench/sm90_timeline_shim.cu; do echo "cur $f"; done
  for v in cur "$@"; do echo "$v $PWD/$B/trees/$v/src/cuda/instantiations/sm90_fwd_d256_bf16.cu"; done ) | \
  xargs -P 2 -L 1 sh -c 'v=$0 f=$1; root=$PWD/'$B'/trees/$v; mkdir -p '$T'/obj/$v; o='$T'/obj/$v/$(basename $f | sed "s/\.\(cu\|cpp\)$//").o; nvcc -std=c++20 -O3 -lineinfo -I$root/src -I$root/include -Ibench --expt-relaxed-constexpr -Xcompiler -fPIC -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -DFATTN_SM90_TIMELINE -c $f -o $o > $o.log 2>&1 || { cat $o.log; exit 1; }; echo "done $v $(basename $f)"'
for v in cur "$@"; do
  objs=$(ls $T/obj/cur/*.o | grep -v sm90_fwd_d256_bf16)
  nvcc -shared -o $T/stage/${v}_tl.so $objs $T/obj/$v/sm90_fwd_d256_bf16.o -lcudart
done
( cd $T/stage && tar -cJf ../../carry/tl.tar.xz *_tl.so )
ls -la build-h13fwd90b/carry
