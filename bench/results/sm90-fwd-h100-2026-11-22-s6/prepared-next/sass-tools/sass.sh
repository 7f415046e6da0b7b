#!/bin/bash
# usage: sass.sh ROOT TU OUTPREFIX  -> OUTPREFIX.sass, OUTPREFIX.ptxas
root=$1; tu=$2; out=$3
CUOBJ=/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/nvidia/cu13/bin/cuobjdump
nvcc -DFATTN_HAS_CUDA=1 -DFATTN_HAS_SM80=1 -DFATTN_HAS_SM90=1 -I$root/include -I$root/src -I/work/main/build-cuda/src/cuda -O3 -DNDEBUG -lineinfo --expt-relaxed-constexpr -std=c++20 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -x cu -c $tu -o $out.o 2> $out.ptxas || { cat $out.ptxas; exit 1; }
$CUOBJ -sass $out.o | grep -vE "^\s*/\*[0-9a-f]{4}\*/\s*$" | sed -E 's@/\*[0-9a-f]{4,}\*/@@g' | grep -v "^\s*$" | grep -v "^\s*//##" > $out.sass
grep -E "registers|spill" $out.ptxas | grep -v "^$" | sed 's/ptxas info    ://' | paste - - | head
