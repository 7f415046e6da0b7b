#!/bin/bash
# Twenty-sixth session, call 11: DqTurnPerWarp (branch s26-pw), the deterministic 128 table's turn
# taken by every warp itself before its reductions, no CTA barrier after the poll and no named
# barrier (DqTurnBeforeDqProduct's bar.arrive is what racecheck misreports, call 9).
# old = main (the hand-over alone), new = s26-pw, bucket 128; then the tree's 128 tests and the
# three sanitizers on the burst-chain and shifted-window deterministic cases at 128.
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
C=build-s26f
sm80_build_tree_tests $C/tree.tgz "128" 14 300
xz -dc $C/old.so.xz > /tmp/old.so; xz -dc $C/new.so.xz > /tmp/new.so
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 2 --deterministic \
  --points '128,1024,0;128,2048,0;128,4096,0;128,16384,0;128,4096,1;128,16384,1;80,2048,0' \
  > $OUT/turns_det.txt 2>&1; echo "det rc $?"; grep "^D=" $OUT/turns_det.txt
python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 1 \
  --points '128,4096,0;128,4096,1' > $OUT/turns_default.txt 2>&1; echo "default rc $?"; grep "^D=" $OUT/turns_default.txt
echo "== $(date +%T) (at $SECONDS s) waiting for the library build"
wait "$SM80_TESTS_PID"
echo "build rc $(cat $OUT/lib-build.rc); kernels with spills: $(grep -cE '[1-9][0-9]* bytes spill stores' $OUT/lib-build.log)"
timeout 120 "$SM80_TESTS" --gtest_filter='*Sm80Backward*:*cuda_sm80*' > $OUT/gtest.log 2>&1
echo "gtest rc $?: $(grep -cE '^\[       OK' $OUT/gtest.log) ok"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/gtest.log | head
F='*Sm80Backward*burst_chain_nomask_gqa_d128:*Sm80Backward*burst_chain_window_d80:ShiftedWindows/Sm80Backward.DeterministicIsBitwiseAndAccurate/windows_d76_rows8_one_query_17_keys:ShiftedWindows/Sm80Backward.DeterministicIsBitwiseAndAccurate/windows_d75_negative_scale_causal'
for tool in racecheck memcheck synccheck; do
  limit=80; [ $tool = racecheck ] && limit=150
  timeout $limit compute-sanitizer --tool $tool --error-exitcode 1 "$SM80_TESTS" \
    --gtest_filter="$F" > $OUT/gtest-$tool.log 2>&1
  echo "== $tool rc $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $OUT/gtest-$tool.log | tail -1) $(grep -cE '^\[       OK' $OUT/gtest-$tool.log) ok"
done
sm80_pack_logs
