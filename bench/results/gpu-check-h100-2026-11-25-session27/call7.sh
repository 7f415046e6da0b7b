#!/bin/bash
# Twenty-seventh session, call 7: the tree with the Hopper forward's window kernels without mask
# branches (v38, merged from s27-fwdwin; call 6 timed it): the full sm90 gpu-check (tests,
# memcheck / racecheck set), then memcheck and racecheck on the window cases.
source scripts/gpu-env.sh 2>/dev/null
mkdir -p $OUT/gc
OUT=$OUT/gc timeout 400 scripts/gpu-check --families sm90 --dtypes "fp16;bf16" --no-bench --bundle 2>&1 | tail -9
T=build-gpu-check/tests/cuda/fattn_cuda_tests
$T --gtest_list_tests --gtest_filter='*Sm90Forward*window*' | grep -c "^  " | sed 's/^/window cases: /'
F='*Sm90Forward*first_tile_d128_window_gqa:*Sm90Forward*window_unbounded_*'
for tool in memcheck racecheck; do
  timeout $((590 - SECONDS)) compute-sanitizer --tool $tool --error-exitcode 1 $T --gtest_filter="$F" > $OUT/win-$tool.log 2>&1
  echo "== window $tool rc $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $OUT/win-$tool.log | tail -1) $(grep -cE '^\[       OK' $OUT/win-$tool.log) ok"
done
