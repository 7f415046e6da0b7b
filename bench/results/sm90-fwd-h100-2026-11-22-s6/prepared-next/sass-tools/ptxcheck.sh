#!/bin/bash
# ptxas -v of the D = 128 TUs (all widths, masks and epilogues) for each variant tree: spills.
for v in pin pinfma8 pinfma4 serial; do for dt in bf16 fp16; do for d in 128 $([ $v = pin ] && echo 64); do
  nice nvcc -DFATTN_HAS_CUDA=1 -DFATTN_HAS_SM80=1 -DFATTN_HAS_SM90=1 -I/tmp/h6b-$v/include -I/tmp/h6b-$v/src -I/work/main/build-cuda/src/cuda -O3 -DNDEBUG -lineinfo --expt-relaxed-constexpr -std=c++20 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -c /tmp/h6b-$v/src/cuda/instantiations/sm90_fwd_d${d}_$dt.cu -o /tmp/h6b/pt_${v}_$d$dt.o 2> /tmp/h6b/pt_${v}_$d$dt.log
  echo "$v d${d}_$dt: kernels $(grep -c 'spill stores' /tmp/h6b/pt_${v}_$d$dt.log), with spills $(grep 'spill stores' /tmp/h6b/pt_${v}_$d$dt.log | grep -vc ' 0 bytes spill stores, 0 bytes spill loads'), warnings $(grep -ci warning /tmp/h6b/pt_${v}_$d$dt.log), LDL/STL $(/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/nvidia/cu13/bin/cuobjdump -sass /tmp/h6b/pt_${v}_$d$dt.o | grep -cE '\b(LDL|STL)\b')"
done; done; done
