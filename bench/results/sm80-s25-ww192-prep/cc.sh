#!/bin/bash
# usage: cc.sh <root> <tu> <arch: 90a|80> <tag>
root=$1; tu=$2; arch=$3; tag=$4
if [ $arch = 90a ]; then g="-gencode=arch=compute_90a,code=sm_90a"; else g="-gencode=arch=compute_80,code=sm_80"; fi
s=$(date +%s)
/usr/local/cuda/bin/nvcc -DFATTN_HAS_CUDA=1 -DFATTN_HAS_SIMT=1 -DFATTN_HAS_SM80=1 -DFATTN_HAS_SM90=1 -DFATTN_VERSION=\"0.1.0\" -I$root/include -I$root/src -I/tmp/ci23b/build/src/cuda -O3 -DNDEBUG -Xcompiler=-fPIC -lineinfo --expt-relaxed-constexpr -std=c++20 $g -Xptxas -v -x cu -c $root/src/cuda/instantiations/$tu.cu -o /tmp/ww192/obj/$tag.$tu.$arch.o > /tmp/ww192/obj/$tag.$tu.$arch.log 2>&1
echo "$tag $tu $arch rc=$? $(( $(date +%s)-s ))s" >> /tmp/ww192/obj/done.txt
