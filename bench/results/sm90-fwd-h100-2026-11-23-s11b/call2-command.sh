#!/bin/bash
# h11-fwd90b, call 2: v19 (one-pair scheduler groups for masked launches of <= 8 query tiles per
# pair at D = 128 / 256: TileShape::one_pair_groups_max_m_blocks) against HEAD and cuDNN in
# turns, twice (the second run reversed), with hpg1 (one-pair groups for every masked launch) as
# the view of N = 2k / 4k; then the sm90 GPU tests of the working tree and memcheck / racecheck
# on two causal cases. Carry: .deps, build-h11b/carry.d (shims2.tar.xz: bench/sm90_timeline_shim.cu
# built without the timeline, bf16 D = 64 / 128 / 256: cur = HEAD 7b4a473's src (v18), new = the working
# tree, hpg1 = call 1's).
source scripts/gpu-env.sh; set -o pipefail
C=build-h11b/carry
mkdir -p $C && tar -xJf build-h11b/carry.d/shims2.tar.xz -C $C
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
(cmake -S . -B build-h11b/tests -G Ninja -DFATTN_CUDA=ON -DFATTN_CUDA_FAMILIES=sm90 -DFATTN_CUDA_ARCHS=90a \
   -DFATTN_BUILD_TOOLS=OFF > $OUT/tests_build.log 2>&1 && ninja -C build-h11b/tests -j8 fattn_cuda_tests >> $OUT/tests_build.log 2>&1) &
TB=$!
# The kernels of cur and new: the same SASS expected (host-side change only).
for v in plain new; do echo "$v SASS $(cuobjdump -sass $C/$v.so | grep -v identifier | md5sum)"; done
S=bench/sm90_vs_cudnn.py
B="--bench --no-flash --dims 128,256,64 --seqlens 512,1024,2048,4096 --rounds 8"
L="--lib cur=$C/plain.so --lib new=$C/new.so --lib hpg1=$C/hpg1.so"
LR="--lib hpg1=$C/hpg1.so --lib new=$C/new.so --lib cur=$C/plain.so"
timeout 150 python3 $S $L $B --json $OUT/ab1.json > $OUT/ab1.log 2>&1
echo "ab1 rc $?"; grep -E "^D=|GEMM" $OUT/ab1.log
timeout 150 python3 $S $LR $B --json $OUT/ab2.json > $OUT/ab2.log 2>&1
echo "ab2 rc $?"; grep -E "^D=|GEMM" $OUT/ab2.log
wait $TB; echo "tests build rc $?"; tail -n 2 $OUT/tests_build.log
timeout 120 build-h11b/tests/tests/cuda/fattn_cuda_tests --gtest_filter='*sm90*:*Sm90*' > $OUT/tests.log 2>&1
echo "tests rc $?"; grep -E "PASSED|FAILED|tests ran" $OUT/tests.log | head -20
F='*first_tile_d128_causal_aligned:*masked_keys_d256_causal_gqa'
for tool in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 1 build-h11b/tests/tests/cuda/fattn_cuda_tests --gtest_filter="$F" > $OUT/$tool.log 2>&1
  echo "$tool rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' $OUT/$tool.log | tr '\n' ' ')"
done
cd $OUT && tar -czf logs.tgz *.log *.json && ls
