#!/bin/bash
# Twenty-ninth session, call 7: the landed tree with variant B in the small backward table:
# gpu-check for sm80 (fp16, bf16: build, every GPU test), then memcheck and racecheck on the
# small table's 128 / 192 cases (full-width and general kernels, GQA, windows, packed rows).
source scripts/gpu-env.sh 2>/dev/null
mkdir -p $OUT/gc
OUT=$OUT/gc timeout 420 scripts/gpu-check --families sm80 --dtypes "fp16;bf16" --no-bench --no-sanitizers 2>&1 | tail -4
T=build-gpu-check/tests/cuda/fattn_cuda_tests
S='SmallSharedMemory/Sm80SmallSharedMemoryBackward.SmallTableIsAccurateAndBitwiseDeterministic'
F="$S/small_window_d128:$S/small_nomask_d128:$S/small_causal_d192_more_queries:$S/small_window_gqa_d192:$S/small_packed_causal_gqa_d129:$S/small_causal_d160_narrower_than_bucket"
for tool in memcheck racecheck; do
  timeout $((590 - SECONDS)) compute-sanitizer --tool $tool --error-exitcode 1 $T --gtest_filter="$F" > $OUT/small-$tool.log 2>&1
  echo "== small $tool rc $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $OUT/small-$tool.log | tail -1) $(grep -cE '^\[       OK' $OUT/small-$tool.log) ok"
done
grep -E "^\[  FAILED" $OUT/gc/gpu-tests.log | head
