#!/bin/bash
# h17-detmask64 call 1: v34 (the deterministic masked launches at 64 on OrderedDqAtomicsInPhaseB)
# in turns beside HEAD's deterministic kernel (shim variant 330) and the default mode
# (bench/sm80_bwd_det_ratio.py: FA2 fwd, default, det (= this tree's launch_backward), v330
# default, v330 det (HEAD), FA2 bwd), D = 64 causal 1k / 4k / 16k and non-causal 1k / 4k (control),
# while the library's sm80 tests build (head dim 64, fp16 + bf16, sm_90a) from
# build-h17-detmask64/tree.tgz; then the D = 64 sm80 backward GPU tests, memcheck + racecheck on
# the two new cases. Shim:
#   SM80_TIMELINE_ONLY_64=1 SM80_SHIMS=plain bench/sm80_bwd_timeline_build.sh build-h17-detmask64/shim 90a
# Run from the repository root: bash build-h17-detmask64/call1.sh
source scripts/gpu-env.sh
source bench/sm80_call_steps.sh
export PYTHONUNBUFFERED=1

LIMIT=${LIMIT:-165}
left() { echo $(( LIMIT - SECONDS )); }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
sm80_build_tree_tests build-h17-detmask64/tree.tgz "64" 14 110
SM80_BWD_SHIM=build-h17-detmask64/shim/plain/libsm80bwdtimeline.so
sm80_bwd_ab 330 "64,1024,1;64,4096,1;64,16384,1;64,1024,0;64,4096,0" 75
# The D = 64 sm80 backward tests (the library holds D = 64 only): Sm80Backward's d64 cases first.
SM80_FORWARD_TESTS='*Sm80Backward*d64*'
NEW='*Sm80Backward*ordered_spread_causal_d64*:*Sm80Backward*ordered_spread_left_window_gqa_d64*'
echo "== $(date +%T) (at $SECONDS s) tests"
sm80_run_forward_tests 40 30 "$NEW"
echo "== $(date +%T) (at $SECONDS s) the cuda_sm80 backward matrix with what is left"
t=$(( $(left) - 3 ))
if [ "$t" -ge 10 ]; then
  timeout "$t" "$SM80_TESTS" --gtest_filter='*cuda_sm80*' > "$OUT/gtest-matrix.log" 2>&1
  echo "matrix rc $?: $(grep -cE '^\[       OK' "$OUT/gtest-matrix.log") ok, $(grep -cE '^\[  FAILED' "$OUT/gtest-matrix.log") failed"
  grep -E 'Failure' -A3 "$OUT/gtest-matrix.log" | head -10
fi
sm80_pack_logs
echo "== done at $SECONDS s"
