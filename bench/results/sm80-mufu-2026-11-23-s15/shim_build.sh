#!/bin/bash
# shimbuild.sh: the prepared call's shim (sm_90a): main's d128 fp16/bf16 forward instances
# (main90/, main90c/) + variants_mufu.cu (this branch) + bench/sm80_shim.cu + the shared stubs.
set -e
export PATH=/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/nvidia/cu13/bin:$PATH
B=/work/main/build-h15-mufu; T=/work/h15-mufu; mkdir -p $B/shim
F="-std=c++20 -O3 -lineinfo -Isrc -Iinclude -Ibench --expt-relaxed-constexpr -Xcompiler -fPIC -gencode=arch=compute_90a,code=sm_90a -Xptxas -v"
cd $T
nvcc $F -c bench/results/sm80-mufu-2026-11-23-s15/variants_mufu.cu -o $B/shim/variants_mufu.o > $B/shim/variants_mufu.log 2>&1
nvcc $F -c bench/sm80_shim.cu -o $B/shim/shim.o > $B/shim/shim.log 2>&1
nvcc $F -DFATTN_SHIM_FORWARD_128 -c bench/sm80_forward_shim_stubs.cu -o $B/shim/stubs.o > $B/shim/stubs.log 2>&1
nvcc -shared -o $B/shim/mufu.so $B/shim/*.o $B/main90/sm80_fwd_d128_fp16.o $B/main90c/sm80_fwd_d128_bf16.o -lcudart
echo built
