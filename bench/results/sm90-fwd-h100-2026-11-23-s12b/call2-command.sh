#!/bin/bash
# h12-fwd90b, call 2: k1f (TileShape::second_key_before_output at D = 256: the producer issues a
# tile's second K before waiting for the previous tile's O to leave the V ring) against HEAD.
# Carry: .deps, build-h12fwd90b/carry (shims.tar.xz: bench/sm90_candidates_build.sh, cur = HEAD's
# src, k1f = cur + candidate-k1f.patch = the working tree's src; timeline_k1f.tar.xz: k1f with
# FATTN_SM90_TIMELINE) and build-h12fwd90b/carry1/timeline.tar.xz (call 1's HEAD timeline shim).
# The masked D = 256 kernels only (the unmasked one, whose producer stores O, spilled with it).
# 1. the sm90 test build of the working tree (background, -j12);
# 2. bench/sm90_candidates_call.sh: cur / k1f / cuDNN in turns, twice (run 2 reversed), D = 256
#    causal N = 512 / 1k / 2k / 4k; controls (same kernels) D = 256 512 / 2k non-causal, D = 128
#    512 causal; ncu at D = 256 512 causal;
# 3. bench/sm90_timeline.py at D = 256 512 / 2k causal with k1f's timeline shim (records for
#    analyze_v0.py / analyze_steps.py, against call 1's HEAD records);
# 4. the sm90 GPU tests, memcheck and racecheck on a masked and an unmasked D = 256 case.
source scripts/gpu-env.sh; set -o pipefail
(cmake -S . -B build-h12fwd90b/tests -G Ninja -DFATTN_CUDA=ON -DFATTN_CUDA_FAMILIES=sm90 \
   -DFATTN_CUDA_ARCHS=90a -DFATTN_BUILD_TOOLS=OFF > /tmp/tests_build.log 2>&1 && \
 ninja -C build-h12fwd90b/tests -j12 fattn_cuda_tests >> /tmp/tests_build.log 2>&1) &
TB=$!
B=build-h12fwd90b
CAND_TAG=fwd90k1f CAND_BUILD=$B CAND_NAMES="k1f" CAND_RUN_S=40 \
  CAND_POINTS="256,512,1;256,1024,1;256,2048,1;256,4096,1;256,512,0;256,2048,0;128,512,1" \
  CAND_NCU_POINTS="256,512,1" \
  CAND_TITLE="h12-fwd90b: D = 256 second K before the O wait (cur = HEAD, k1f = candidate-k1f.patch)" \
  bash bench/sm90_candidates_call.sh > /tmp/cand.log 2>&1
echo "candidates rc $? at ${SECONDS} s"; grep -E "^\|" $OUT/fwd90k1f-summary.md | head -12
W=/tmp/tlw; mkdir -p $W /tmp/tl
tar -xJf $B/carry/timeline_k1f.tar.xz -C $W && tar -xJf $B/carry/shims.tar.xz -C $W
timeout 50 python3 bench/sm90_timeline.py --timeline $W/timeline_k1f.so --plain $W/k1f.so --out /tmp/tl \
  --reps 4 --points "256,512,1;256,2048,1" > /tmp/tl/tl.log 2>&1
echo "timeline rc $? at ${SECONDS} s"; grep -E "TFLOP/s in turns|bitwise" /tmp/tl/tl.log | head -6
rm -f /tmp/tl/trace-*.json; tar -cJf $OUT/tl2.tar.xz -C /tmp/tl .
wait $TB; echo "tests build rc $? at ${SECONDS} s"; tail -n 2 /tmp/tests_build.log
T=build-h12fwd90b/tests/tests/cuda/fattn_cuda_tests
timeout 100 $T --gtest_filter='*sm90*:*Sm90*' > /tmp/tests.log 2>&1
echo "tests rc $? at ${SECONDS} s"; grep -E "PASSED|FAILED|tests ran" /tmp/tests.log | head -20
F='*keys_ascending_d256_more_queries:*producer_stores_d256_padded_rows'
for tool in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 1 $T --gtest_filter="$F" > /tmp/$tool.log 2>&1
  echo "$tool rc $? at ${SECONDS} s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' /tmp/$tool.log | tr '\n' ' ')"
done
cp /tmp/tests_build.log /tmp/tests.log /tmp/memcheck.log /tmp/racecheck.log /tmp/cand.log $OUT/ 2>/dev/null
cd $OUT && tar -czf logs.tgz *.log && rm -f *.log && ls
