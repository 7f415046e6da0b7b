#!/bin/bash
# h12-fwd90, call 1: keys ascending in even rounds (TileShape::keys_ascending_even_rounds, masked
# D = 128 / 256 launches of <= 8 query tiles per pair) against HEAD 2fefb77 and cuDNN in turns.
# Carry: .deps, build-h12fwd90/carry (shims.tar.xz, bench/sm90_candidates_build.sh: cur = HEAD's
# src, asc = HEAD + candidate-asc.patch = the working tree's src).
# 1. the sm90 test build of the working tree (background, -j12);
# 2. bench/sm90_candidates_call.sh: sm90_vs_cudnn.py in turns twice (run 2 reversed) at D = 256
#    N = 512 / 1k causal, D = 128 512 / 1k causal, controls 256 / 128 2k causal and 256 512
#    non-causal; ncu (duration, DRAM bytes) at 256 / 128 N = 512 causal;
# 3. the sm90 GPU tests, memcheck and racecheck of a masked D = 256 case that runs both walks.
source scripts/gpu-env.sh; set -o pipefail
git status --short > $OUT/tree.txt 2>&1
(cmake -S . -B build-h12fwd90/tests -G Ninja -DFATTN_CUDA=ON -DFATTN_CUDA_FAMILIES=sm90 \
   -DFATTN_CUDA_ARCHS=90a -DFATTN_BUILD_TOOLS=OFF > /tmp/tests_build.log 2>&1 && \
 ninja -C build-h12fwd90/tests -j12 fattn_cuda_tests >> /tmp/tests_build.log 2>&1) &
TB=$!
CAND_TAG=fwd90asc CAND_BUILD=build-h12fwd90 CAND_NAMES="asc" CAND_RUN_S=35 \
  CAND_POINTS="256,512,1;256,1024,1;128,512,1;128,1024,1;256,2048,1;128,2048,1;256,512,0" \
  CAND_NCU_POINTS="256,512,1;128,512,1" \
  CAND_TITLE="h12-fwd90: keys ascending in even rounds (cur = HEAD 2fefb77, asc = candidate-asc.patch)" \
  bash bench/sm90_candidates_call.sh > /tmp/cand.log 2>&1
echo "candidates rc $?"
wait $TB; echo "tests build rc $? at ${SECONDS} s"; tail -n 3 /tmp/tests_build.log
T=build-h12fwd90/tests/tests/cuda/fattn_cuda_tests
timeout 120 $T --gtest_filter='*sm90*:*Sm90*' > /tmp/tests.log 2>&1
echo "tests rc $? at ${SECONDS} s"; grep -E "PASSED|FAILED|tests ran|SKIPPED \]" /tmp/tests.log | head -30
grep -E "keys_ascending|first_tile" /tmp/tests.log | grep -E "OK|FAILED" | head -20
F='*keys_ascending_d256_more_queries'
for tool in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 1 $T --gtest_filter="$F" > /tmp/$tool.log 2>&1
  echo "$tool rc $? at ${SECONDS} s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' /tmp/$tool.log | tr '\n' ' ')"
done
cp /tmp/tests_build.log /tmp/tests.log /tmp/memcheck.log /tmp/racecheck.log /tmp/cand.log $OUT/ 2>/dev/null
cd $OUT && tar -czf logs.tgz *.log tree.txt && rm -f *.log tree.txt && ls
