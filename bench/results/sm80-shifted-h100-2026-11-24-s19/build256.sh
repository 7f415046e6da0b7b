#!/bin/bash
# old / new sm80 d256 forward shims (sm_90a) for bench/sm80_fwd_turns.py --old/--new.
set -e
B=/work/main/build-s19-sw256
cd /work/main
export PATH=/usr/local/cuda/bin:$PATH
for v in ${VARIANTS:-old new}; do
  O=$B/obj-$v; rm -rf $O; mkdir -p $O
  F="-std=c++20 -O3 -lineinfo -I$B/$v/src -I$B/$v/include -Ibench --expt-relaxed-constexpr -Xcompiler -fPIC -gencode=arch=compute_90a,code=sm_90a -Xptxas -v"
  ls bench/sm80_shim.cu bench/sm80_forward_shim_stubs.cu $B/$v/src/cuda/instantiations/sm80_fwd_d256_{fp16,bf16}.cu | \
    xargs -P 2 -I{} sh -c 'f={}; b=$(basename $f .cu); extra=""; [ $b = sm80_forward_shim_stubs ] && extra="-DFATTN_SHIM_FORWARD_256 -DFATTN_STUB_FORWARD_VARIANTS"; nvcc '"$F"' $extra -c $f -o '"$O"'/$b.o > '"$O"'/$b.log 2>&1 || { tail -30 '"$O"'/$b.log; exit 1; }'
  grep -hE '[1-9][0-9]* bytes spill' $O/*.log && echo "$v: SPILLS" || echo "$v: 0 spills"
  nvcc -shared -o $O/$v.so $O/*.o -lcudart
  xz -6 -c $O/$v.so > $B/carry/$v.so.xz
done
ls -la $B/carry
