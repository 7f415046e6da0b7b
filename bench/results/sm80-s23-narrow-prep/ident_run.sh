#!/bin/bash
# one TU at a time: old (main ededf19 archive) vs new (worktree), sm_80 + sm_90a
cd /work/wt-s23-narrow
for f in sm80_fwd_d192_fp16 sm80_fwd_d64_fp16 sm80_bwd_d128_fp16 sm80_bwd_d256_fp16 sm80_fwd_d128_bf16 sm80_fwd_d256_bf16; do
  for v in old new; do
    if [ $v = old ]; then R=/tmp/s23n/base; else R=/work/wt-s23-narrow; fi
    /usr/bin/time -f "$f $v %e s" /usr/local/cuda/bin/nvcc -DFATTN_HAS_CUDA=1 -DFATTN_HAS_SM80=1 -I$R/include -I$R/src -O3 -DNDEBUG -lineinfo --expt-relaxed-constexpr -std=c++20 -gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -c $R/src/cuda/instantiations/$f.cu -o /tmp/s23n/ident/$f.$v.o > /tmp/s23n/ident/$f.$v.log 2>&1
    tail -1 /tmp/s23n/ident/$f.$v.log
  done
done
echo DONE
