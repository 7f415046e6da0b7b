#!/bin/bash
# Twenty-sixth session, call 12: the final tree's sm80 backward tests (buckets 128 / 256, whose
# deterministic tables changed: the hand-over alone, v52's slot), and memcheck on the
# shifted-window deterministic cases gpu-check's sanitizers run at 128.
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
sm80_build_tree_tests build-s26g/tree.tgz "128;256" 15 240
wait "$SM80_TESTS_PID"
echo "build rc $(cat $OUT/lib-build.rc); kernels with spills: $(grep -cE '[1-9][0-9]* bytes spill stores' $OUT/lib-build.log)"
timeout 200 "$SM80_TESTS" --gtest_filter='*Sm80Backward*' > $OUT/gtest.log 2>&1
echo "gtest rc $?: $(grep -cE '^\[       OK' $OUT/gtest.log) ok"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/gtest.log | head
sm80_pack_logs
