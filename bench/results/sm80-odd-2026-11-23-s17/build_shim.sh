#!/bin/bash
# h17-odd80: the call's shim, from a worktree ($TREE, default this branch's), one nvcc at a time
# (sm_90a), into /work/main/build-h17-odd80/obj, then libs17shim.so.xz and the scripts into
# /work/main/build-h17-odd80/carry.
set -e
TREE=${TREE:-$(cd "$(dirname "$0")/../../.." && pwd)}
O=/work/main/build-h17-odd80/obj
C=/work/main/build-h17-odd80/carry
mkdir -p $O $C
export PATH=/usr/local/cuda/bin:$PATH
cd $TREE
F="-std=c++20 -O3 -lineinfo -Isrc -Iinclude -Ibench --expt-relaxed-constexpr -Xcompiler -fPIC -gencode=arch=compute_90a,code=sm_90a -Xptxas -v"
for f in bench/sm80_odd_variants.cu bench/sm80_shim.cu bench/sm80_forward_shim_stubs.cu \
         src/cuda/instantiations/sm80_fwd_d256_fp16.cu src/cuda/instantiations/sm80_fwd_d256_bf16.cu; do
  b=$(basename $f .cu)
  extra=""
  case $b in
    sm80_shim) extra="-DFATTN_SHIM_FP16_VARIANTS";;
    sm80_forward_shim_stubs) extra="-DFATTN_SHIM_FORWARD_256";;
    sm80_odd_variants) extra="-DFATTN_ODD_VARIANTS_ONLY";;
  esac
  /usr/bin/time -f "$b %e s" nvcc $F $extra -c $f -o $O/$b.o > $O/$b.log 2>&1 || { tail -30 $O/$b.log; exit 1; }
  tail -1 $O/$b.log
done
grep -hE '[1-9][0-9]* bytes spill' $O/*.log && { echo "spills"; exit 1; } || true
nvcc -shared -o $O/libs17shim.so $O/sm80_shim.o $O/sm80_forward_shim_stubs.o $O/sm80_odd_variants.o \
  $O/sm80_fwd_d256_fp16.o $O/sm80_fwd_d256_bf16.o -lcudart
xz -6 -c $O/libs17shim.so > $C/libs17shim.so.xz
R=bench/results/sm80-odd-2026-11-23-s17
cp bench/sm80_fwd_turns.py $R/check_s17.py $R/call.sh $C/
ls -la $C
