#!/bin/bash
# Lead, tenth session: the tile decode by FastDivisor and h10-fwd90's lse-fast patch ("new",
# the working tree's src/) against HEAD's kernels ("cur") and cuDNN, in turns, twice (second run
# in reverse order); then the sm90 forward GPU tests of the new tree. Carry: .deps, build-l10cur
# (git archive HEAD src include), build-l10new (the working tree's src, include).
source scripts/gpu-env.sh; set -o pipefail
S=bench/sm90_vs_cudnn.py
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
SM90_SOURCE_ROOT=$PWD/build-l10new bench/sm90_build.sh build-l10/new 8 > $OUT/build_new.log 2>&1 &
SM90_SOURCE_ROOT=$PWD/build-l10cur bench/sm90_build.sh build-l10/cur 8 > $OUT/build_cur.log 2>&1 &
wait
for f in new cur; do tail -n 1 $OUT/build_$f.log; done
grep -h "spill" build-l10/new/ptxas.log | sort | uniq -c
timeout 60 python3 $S --lib new=build-l10/new/libsm90shim.so --check > $OUT/check.log 2>&1
echo "check rc $?: $(grep -E 'check:' $OUT/check.log)"
(cmake -S . -B build-l10/tests -G Ninja -DFATTN_CUDA=ON -DFATTN_CUDA_FAMILIES=sm90 -DFATTN_CUDA_ARCHS=90a \
   -DFATTN_BUILD_TOOLS=OFF > $OUT/tests_build.log 2>&1 && ninja -C build-l10/tests -j12 fattn_cuda_tests >> $OUT/tests_build.log 2>&1) &
B="--bench --no-flash --dims 128,64,256 --seqlens 512,1024,2048,4096 --rounds 10"
timeout 150 python3 $S --lib new=build-l10/new/libsm90shim.so --lib cur=build-l10/cur/libsm90shim.so $B --json $OUT/bench1.json > $OUT/bench1.log 2>&1
echo "bench1 rc $?"; grep -E "^\||geometric|GEMM" $OUT/bench1.log
timeout 150 python3 $S --lib cur=build-l10/cur/libsm90shim.so --lib new=build-l10/new/libsm90shim.so $B --json $OUT/bench2.json > $OUT/bench2.log 2>&1
echo "bench2 rc $?"; grep -E "^\||geometric|GEMM" $OUT/bench2.log
wait
tail -n 2 $OUT/tests_build.log
timeout 200 build-l10/tests/tests/cuda/fattn_cuda_tests --gtest_filter='*sm90*:*Sm90*' > $OUT/tests.log 2>&1
echo "tests rc $?"; grep -E "PASSED|FAILED|tests ran" $OUT/tests.log | head -20
F='*/cuda_sm90_small_float16_B1_Nq17_Nk1013_H2x1_D72_causal:*/cuda_sm90_small_bfloat16_B1_Nq1013_Nk17_H2x1_D128_causal:*/cuda_sm90_small_bfloat16_B1_Nq33_Nk47_H2x2_D72_causal_pad3'
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 1 build-l10/tests/tests/cuda/fattn_cuda_tests --gtest_filter="$F" > $OUT/$tool.log 2>&1
  echo "$tool rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' $OUT/$tool.log | tr '\n' ' ')"
done
