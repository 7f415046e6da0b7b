#!/bin/bash
# Twenty-eighth session, call 5: the landed tree (v57 band pass, v58 fused dQ conversion in the
# 128 table's NoMask kernels, the shared-memory check before every launch): scripts/gpu-check for
# the simt and sm80 families (every dtype, every head dim; build, GPU tests, its memcheck /
# racecheck set), then memcheck on the fused / fallback cases and racecheck / synccheck on the
# fused ones.
source scripts/gpu-env.sh 2>/dev/null
mkdir -p $OUT/gc
OUT=$OUT/gc timeout 480 scripts/gpu-check --families "simt;sm80" --no-bench --bundle 2>&1 | tail -12
T=build-gpu-check/tests/cuda/fattn_cuda_tests
F='FusedDqConversion/*'
$T --gtest_list_tests --gtest_filter="$F" | grep -c "^  " | sed 's/^/fused cases: /'
timeout $((560 - SECONDS)) compute-sanitizer --tool memcheck --error-exitcode 1 $T --gtest_filter="$F" > $OUT/fused-memcheck.log 2>&1
echo "== fused memcheck rc $?: $(grep -E 'ERROR SUMMARY' $OUT/fused-memcheck.log | tail -1) $(grep -cE '^\[       OK' $OUT/fused-memcheck.log) ok"
F2='*/fused_partial_tile_d128_odd:*/fused_gqa4_d128:*/fused_step_class5_d72'
for tool in racecheck synccheck; do
  timeout $((590 - SECONDS)) compute-sanitizer --tool $tool --error-exitcode 1 $T --gtest_filter="$F2" > $OUT/fused-$tool.log 2>&1
  echo "== fused $tool rc $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $OUT/fused-$tool.log | tail -1) $(grep -cE '^\[       OK' $OUT/fused-$tool.log) ok"
done
