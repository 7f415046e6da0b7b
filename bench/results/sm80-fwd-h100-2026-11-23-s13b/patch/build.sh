#!/bin/bash
# h13-fwd80b: forward-only shim, instances d192/d256 x bf16/fp16 (sm_90a), from tree $1 into $2;
# VARIANTS=1 links src/variants14.cu (the candidate), else forward variants are stubs.
set -e
tree=$1; out=$2; here=$(cd "$(dirname "$0")" && pwd)
mkdir -p $out
flags="-std=c++20 -O3 -lineinfo -I$tree/src -I$tree/include -I$tree/bench --expt-relaxed-constexpr -Xcompiler -fPIC -gencode=arch=compute_90a,code=sm_90a -Xptxas -v"
srcs=""
for d in 192 256; do for t in bf16 fp16; do srcs+=" $tree/src/cuda/instantiations/sm80_fwd_d${d}_$t.cu"; done; done
srcs+=" $tree/bench/sm80_shim.cu"
if [ "${VARIANTS:-0}" = 1 ]; then srcs+=" $here/src/${VSRC:-variants14.cu}"; stubflag=""; else stubflag="-DNO_FORWARD_VARIANTS"; fi
nvcc $flags $stubflag -c $here/src/stubs.cu -o $out/stubs.o 2>$out/stubs.o.log
printf '%s\n' $srcs | xargs -P ${JOBS:-2} -I{} sh -c 'f={}; o='$out'/$(basename $f .cu).o; nvcc '"$flags"' -c $f -o $o 2>$o.log || { cat $o.log; exit 1; }'
cat $out/*.o.log > $out/ptxas.log
nvcc -shared -o $out/libsm80shim.so $out/*.o -lcudart
echo "built $out/libsm80shim.so; kernels with spills: $(grep -cE '[1-9][0-9]* bytes spill' $out/ptxas.log)"
