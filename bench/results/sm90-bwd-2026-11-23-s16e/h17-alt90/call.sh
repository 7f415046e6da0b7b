#!/bin/bash
# h17-alt90: the library's sm90 backward tests with the unmasked D = 128 row = DqSplit::alternate.
# The device runs main's tree: overlay this branch's changed sources first. <= 155 s.
set -o pipefail
T0=$SECONDS
el() { echo "[t=$((SECONDS - T0)) s] $*"; }
tar xzf build-h17-alt90/overlay.tgz -C . && el "overlay: $(grep -c BackwardTileConfig128Unmasked src/cuda/sm90/backward.cuh src/cuda/sm90/backward_tile_config.hpp | tr '\n' ' ')"
source scripts/gpu-env.sh
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader
timeout 118 scripts/gpu-check --families "sm90" --dtypes "fp16;bf16" --filter '*Sm90Backward*:*cuda_sm90*' --no-bench > $OUT/gpu-check.out 2>&1; el "gpu-check rc $?"
grep -E "^== gpu-check" $OUT/gpu-check.out
grep -E "FAILED|\[  FAILED" $OUT/gpu-tests.log | head -20
BIN=build-gpu-check/tests/cuda/fattn_cuda_tests
NM='Sm90/Sm90Backward.MatchesReference/one_key_tile_d128:Sm90/Sm90Backward.MatchesReference/one_query_d128'
if [ -x $BIN ]; then
  $BIN --gtest_list_tests --gtest_filter="$NM" | head -5
  R=$((150 - (SECONDS - T0))); [ $R -gt 8 ] && { timeout $((R / 2)) compute-sanitizer --tool memcheck --error-exitcode 1 $BIN --gtest_filter="$NM" > $OUT/memcheck-nomask-d128.log 2>&1; el "memcheck NoMask d128 rc $?: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $OUT/memcheck-nomask-d128.log | tr '\n' ' ')"; }
  R=$((152 - (SECONDS - T0))); [ $R -gt 8 ] && { timeout $R compute-sanitizer --tool racecheck --error-exitcode 1 $BIN --gtest_filter="$NM" > $OUT/racecheck-nomask-d128.log 2>&1; el "racecheck NoMask d128 rc $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|PASSED|FAILED' $OUT/racecheck-nomask-d128.log | tr '\n' ' ')"; }
fi
el done
