#!/bin/bash
# h12-fwd90c, the one call: k1u (TileShape::second_key_before_output in the unmasked D = 256
# kernels too, whose producer stores O: the tile's second K just before store_staged) and k1s
# (k1u + the producer's O stores in two bulk groups, the boxes over the first V's ring stage
# first; that V waits for them alone, the second V for the rest) against HEAD (cur).
# Carry: .deps, build-h12fwd90c/carry (shims.tar.xz: cur / k1u / k1s, bench/sm90_candidates_build.sh
# and build-h12fwd90c/build_k1s.sh). The working tree holds k1s.
# 1. the sm90 test build of the working tree (k1s; background, -j12);
# 2. bench/sm90_candidates_call.sh: cur / k1u / k1s / cuDNN in turns, twice (run 2 reversed),
#    D = 256 N = 512 / 1k / 2k non-causal (changed) and causal (same kernels), D = 128 512;
#    ncu at D = 256 512 non-causal;
# 3. the sm90 GPU tests of k1s, memcheck and racecheck on the producer-store cases; meanwhile the
#    k1u test build (the tree patched back to k1u, second build folder), then its sm90 tests.
source scripts/gpu-env.sh; set -o pipefail
R=bench/results/sm90-fwd-h100-2026-11-23-s12c
L=$OUT/steps.log
cfg() { cmake -S . -B $1 -G Ninja -DFATTN_CUDA=ON -DFATTN_CUDA_FAMILIES=sm90 -DFATTN_CUDA_ARCHS=90a \
          -DFATTN_BUILD_TOOLS=OFF && ninja -C $1 -j$2 fattn_cuda_tests; }
(cfg build-h12fwd90c/tests 12 > $OUT/build.log 2>&1) &
TB=$!
CAND_TAG=fwd90c CAND_BUILD=build-h12fwd90c CAND_NAMES="k1u k1s" CAND_RUN_S=45 \
  CAND_POINTS="256,512,0;256,1024,0;256,2048,0;256,512,1;256,1024,1;256,2048,1;128,512,0" \
  CAND_NCU_POINTS="256,512,0" \
  CAND_TITLE="h12-fwd90c: D = 256 unmasked, K1 ahead (k1u) and the split O store (k1s) against HEAD" \
  bash bench/sm90_candidates_call.sh > /dev/null 2>&1
echo "candidates rc $? at ${SECONDS} s" >> $L
wait $TB; echo "tests build (k1s) rc $? at ${SECONDS} s" >> $L
patch -s -R -p1 < $R/candidate-k1s.patch && patch -s -p1 < $R/candidate-k1u.patch
echo "patched to k1u rc $? at ${SECONDS} s" >> $L
(cfg build-h12fwd90c/tests-k1u 10 > $OUT/build-k1u.log 2>&1) &
TB2=$!
T=build-h12fwd90c/tests/tests/cuda/fattn_cuda_tests
timeout 90 $T --gtest_filter='*sm90*:*Sm90*' > $OUT/tests-k1s.log 2>&1
echo "tests k1s rc $? at ${SECONDS} s: $(grep -E '^\[  PASSED|^\[  FAILED' $OUT/tests-k1s.log | head -3 | tr '\n' ' ')" >> $L
F='*producer_stores_d256_one_key_step:*producer_stores_d256_two_key_steps:*producer_stores_d256_padded_rows'
for tool in memcheck racecheck; do
  timeout 50 compute-sanitizer --tool $tool --error-exitcode 1 $T --gtest_filter="$F" > /tmp/$tool.log 2>&1
  echo "$tool rc $? at ${SECONDS} s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' /tmp/$tool.log | tr '\n' ' ')" >> $L
  cat /tmp/$tool.log >> $OUT/sanitizers.log
done
wait $TB2; echo "tests build (k1u) rc $? at ${SECONDS} s" >> $L
timeout 60 build-h12fwd90c/tests-k1u/tests/cuda/fattn_cuda_tests --gtest_filter='*sm90*:*Sm90*' > $OUT/tests-k1u.log 2>&1
echo "tests k1u rc $? at ${SECONDS} s: $(grep -E '^\[  PASSED|^\[  FAILED' $OUT/tests-k1u.log | head -3 | tr '\n' ' ')" >> $L
cat $L
