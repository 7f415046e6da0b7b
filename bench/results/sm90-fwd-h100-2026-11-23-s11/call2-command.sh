#!/bin/bash
# h11-fwd90, call 2: v18 (first_tile_coverage at D = 64, 128 and 256, its tests broadcast from
# lane 0; the working tree's src) against the kernels before this work ("cur": c478299) and
# cuDNN, in turns, twice (second run reversed); then the sm90 GPU tests of the working tree and
# memcheck / racecheck on two coverage cases. Carry: .deps, build-h11 (build-h11/{cur,v18}).
source scripts/gpu-env.sh; set -o pipefail
S=bench/sm90_vs_cudnn.py
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
(cmake -S . -B build-h11/tests -G Ninja -DFATTN_CUDA=ON -DFATTN_CUDA_FAMILIES=sm90 -DFATTN_CUDA_ARCHS=90a \
   -DFATTN_BUILD_TOOLS=OFF > $OUT/tests_build.log 2>&1 && ninja -C build-h11/tests -j8 fattn_cuda_tests >> $OUT/tests_build.log 2>&1) &
TB=$!
SHIMS=()
for v in cur v18; do
  SM90_SOURCE_ROOT=$PWD/build-h11/$v bench/sm90_build.sh build-h11/b/$v 4 > $OUT/build_$v.log 2>&1 &
  SHIMS+=($!)
done
wait "${SHIMS[@]}"
for v in cur v18; do tail -n 1 $OUT/build_$v.log; grep -h "spill" build-h11/b/$v/ptxas.log | sort | uniq -c; done
timeout 60 python3 $S --lib v18=build-h11/b/v18/libsm90shim.so --check > $OUT/check_v18.log 2>&1
echo "check v18 rc $?: $(grep -E 'check:' $OUT/check_v18.log)"
B="--bench --no-flash --dims 128,64,256 --seqlens 512,1024,2048,4096 --rounds 8"
L="--lib cur=build-h11/b/cur/libsm90shim.so --lib v18=build-h11/b/v18/libsm90shim.so"
LR="--lib v18=build-h11/b/v18/libsm90shim.so --lib cur=build-h11/b/cur/libsm90shim.so"
timeout 100 python3 $S $L $B --json $OUT/ab1.json > $OUT/ab1.log 2>&1
echo "ab1 rc $?"; grep -E "^D=|GEMM" $OUT/ab1.log
timeout 100 python3 $S $LR $B --json $OUT/ab2.json > $OUT/ab2.log 2>&1
echo "ab2 rc $?"; grep -E "^D=|GEMM" $OUT/ab2.log
wait $TB; echo "tests build rc $?"; tail -n 2 $OUT/tests_build.log
timeout 110 build-h11/tests/tests/cuda/fattn_cuda_tests --gtest_filter='*sm90*:*Sm90*' > $OUT/tests.log 2>&1
echo "tests rc $?"; grep -E "PASSED|FAILED|tests ran" $OUT/tests.log | head -20
F='*first_tile_d64_causal_aligned:*first_tile_d128_window_gqa'
for tool in memcheck racecheck; do
  timeout 45 compute-sanitizer --tool $tool --error-exitcode 1 build-h11/tests/tests/cuda/fattn_cuda_tests --gtest_filter="$F" > $OUT/$tool.log 2>&1
  echo "$tool rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' $OUT/$tool.log | tr '\n' ' ')"
done
