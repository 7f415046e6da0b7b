#!/bin/bash
# Sixteenth session: the prepared call with its shim built on the GPU machine (16 cores) instead
# of carried: main's d128 fp16/bf16 forward instances + variants_mufu.cu + bench/sm80_shim.cu + the
# shared stubs (-DFATTN_SHIM_FORWARD_128), sm_90a, then call_next.sh on it.
#   source scripts/gpu-env.sh; OUT=$OUT bash bench/results/sm80-mufu-2026-11-23-s15/device_build_and_call.sh
set -eo pipefail
HERE=bench/results/sm80-mufu-2026-11-23-s15
B=/tmp/mufu-build
mkdir -p $B
F="-std=c++20 -O3 -lineinfo -Isrc -Iinclude -Ibench --expt-relaxed-constexpr -Xcompiler -fPIC -gencode=arch=compute_90a,code=sm_90a -Xptxas -v"
echo "== $(date +%T) build"
nvcc $F -c $HERE/variants_mufu.cu -o $B/variants_mufu.o > $B/variants_mufu.log 2>&1 &
nvcc $F -c bench/sm80_shim.cu -o $B/shim.o > $B/shim.log 2>&1 &
nvcc $F -DFATTN_SHIM_FORWARD_128 -c bench/sm80_forward_shim_stubs.cu -o $B/stubs.o > $B/stubs.log 2>&1 &
nvcc $F -c src/cuda/instantiations/sm80_fwd_d128_fp16.cu -o $B/fwd_fp16.o > $B/fwd_fp16.log 2>&1 &
nvcc $F -c src/cuda/instantiations/sm80_fwd_d128_bf16.cu -o $B/fwd_bf16.o > $B/fwd_bf16.log 2>&1 &
wait
nvcc -shared -o $B/mufu.so $B/*.o -lcudart
cat $B/*.log | grep -c "0 bytes spill stores" || true
cat $B/*.log | grep "spill stores" | grep -v " 0 bytes spill stores" || true
mkdir -p $B/carry && xz -c $B/mufu.so > $B/carry/mufu.so.xz
echo "== $(date +%T) built"
C=$B/carry OUT=$OUT bash $HERE/call_next.sh
