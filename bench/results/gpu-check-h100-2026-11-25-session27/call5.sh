#!/bin/bash
# Twenty-seventh session, call 5: the tree as it lands (v54 + v55 + v56). The sm80 half of the
# issue sweep (cuda_sm80 and its deterministic mode against FA2, fwd and fwd+bwd, bf16, B·N = 16k,
# H·D = 2048, D = 64 / 128 / 256, N = 512 .. 16k; the Hopper forward is unchanged this session),
# then gpu-check's sm80 sanitizer set and racecheck on the deterministic turn cases (call 4's
# was cut at its limit).
source scripts/gpu-env.sh 2>/dev/null
mkdir -p $OUT/sweep
OUT=$OUT/sweep timeout 400 scripts/gpu-check --families sm80 --dtypes "fp16;bf16" --bundle --no-tests \
  --no-sanitizers \
  --bench-args "--sections ceilings,sweep --seqlens 512,1024,2048,4096,8192,16384 --fattn-backends cuda_sm80,cuda_sm80+deterministic --sdpa-backends flash" \
  2>&1 | tail -6
echo "== $(date +%T) (at $SECONDS s) sanitizer set"
mkdir -p $OUT/gc
OUT=$OUT/gc timeout 120 scripts/gpu-check --families sm80 --dtypes "fp16;bf16" --no-tests --no-bench --bundle 2>&1 | tail -8
echo "== $(date +%T) (at $SECONDS s) racecheck"
T=build-gpu-check/tests/cuda/fattn_cuda_tests
F='*Sm80Backward*turn_before_dq*:*Sm80Backward*burst_chain_window_gqa_d256:*Sm80Backward*burst_chain_nomask_gqa_d128:ShiftedWindows/Sm80Backward.DeterministicIsBitwiseAndAccurate/windows_d75_negative_scale_causal'
timeout $((590 - SECONDS)) compute-sanitizer --tool racecheck --error-exitcode 1 $T --gtest_filter="$F" > $OUT/det-racecheck.log 2>&1
echo "== det racecheck rc $?: $(grep -E 'RACECHECK SUMMARY' $OUT/det-racecheck.log | tail -1) $(grep -cE '^\[       OK' $OUT/det-racecheck.log) ok"
grep -E "^\[       OK|^\[ RUN" $OUT/det-racecheck.log | tail -3
