#!/bin/bash
# Twenty-sixth session, call 9: call 8's racecheck reported hazards in the deterministic kernels
# with DqTurnBeforeDqProduct (128 NoMask and class, 256 NoMask), all between accesses that a
# __syncthreads separates (the loop top, the epilogue), none in the kernels without it. Is it the
# tool's model of bar.arrive, or the kernels?
# 1. bench/racecheck_named_barrier.cu: a race-free kernel with the same barrier pattern (mode 1),
#    without the named barrier (0), with bar.sync everywhere (2), under racecheck;
# 2. the library's sm80 tests built from main with the turn's move taken out of both tables
#    (the hand-over alone: treeA), racecheck on the same burst-chain cases.
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
sm80_build_tree_tests build-s26e/treeA.tgz "128;256" 14 330
nvcc -arch=sm_90a -O2 -o /tmp/rcnb bench/racecheck_named_barrier.cu && for mode in 0 1 2; do
  compute-sanitizer --tool racecheck /tmp/rcnb $mode > $OUT/rcnb-$mode.txt 2>&1
  echo "named-barrier pattern mode $mode rc $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $OUT/rcnb-$mode.txt | tail -1)"
  grep -m2 "Race reported" $OUT/rcnb-$mode.txt | cut -c1-200
done
echo "== $(date +%T) (at $SECONDS s) waiting for the library build"
wait "$SM80_TESTS_PID"
echo "build rc $(cat $OUT/lib-build.rc); kernels with spills: $(grep -cE '[1-9][0-9]* bytes spill stores' $OUT/lib-build.log)"
timeout $((560 - SECONDS)) compute-sanitizer --tool racecheck --error-exitcode 1 "$SM80_TESTS" \
  --gtest_filter='*Sm80Backward*burst_chain_nomask_gqa_d128:*Sm80Backward*burst_chain_window_d80:*Sm80Backward*burst_chain_nomask_gqa_d256' > $OUT/gtest-racecheck.log 2>&1
echo "== treeA racecheck rc $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $OUT/gtest-racecheck.log | tail -1) $(grep -cE '^\[       OK' $OUT/gtest-racecheck.log) ok"
sm80_pack_logs
