#!/bin/bash
# Twenty-sixth session, call 5 (#5): the sm80 backward candidates timed in turns beside the
# previous kernels and FA2, and their GPU tests.
# - s26-det (the lost s25-det2 rebuilt from its notes): DeferredDqHandOver + DqTurnBeforeDqProduct
#   on the deterministic 128 table, the hand-over alone on 256 NoMask. old = main's sm80 sources
#   (60a0865), new = s26-det (buckets 64 / 128 / 256), newA = s26-det with 128 on the hand-over
#   alone (bucket 128 only).
# - s26-b256: PaddedDqStaging + PhaseAGroupsPastStepClasses on the default 256 table (bucket 256).
# Tests: the merged tree (main + s26-det + s26-b256) built in the background (buckets 128 / 256),
# then the sm80 backward tests, memcheck / racecheck / synccheck on the new cases.
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
C=build-s26c
sm80_build_tree_tests $C/tree.tgz "128;256" 14 330
xz -dc $C/old.so.xz > /tmp/old.so; xz -dc $C/new.so.xz > /tmp/new.so
xz -dc $C/newA.so.xz > /tmp/newA.so; xz -dc $C/b256.so.xz > /tmp/b256.so
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
P='128,2048,0;128,4096,0;128,16384,0;128,4096,1;64,1024,1;256,2048,0;256,4096,0;256,4096,1'
python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 2 --deterministic \
  --points "$P" > $OUT/turns_det.txt 2>&1; echo "det rc $?"; tail -12 $OUT/turns_det.txt
python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/newA.so --runs 2 --deterministic \
  --points '128,2048,0;128,4096,0;128,16384,0;128,4096,1' > $OUT/turns_detA.txt 2>&1
echo "detA rc $?"; tail -7 $OUT/turns_detA.txt
python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/b256.so --runs 3 \
  --points '256,4096,0,4,8,bf16;256,4096,1,4,8,bf16;256,1024,0,16,8,bf16;256,2048,0,16,16,fp16;256,16384,0,1,8,bf16;232,4096,0,4,8,bf16' \
  > $OUT/turns_b256.txt 2>&1; echo "b256 rc $?"; tail -9 $OUT/turns_b256.txt
python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 1 \
  --points '128,4096,0;256,4096,0;64,1024,1' > $OUT/turns_default.txt 2>&1
echo "default rc $?"; tail -5 $OUT/turns_default.txt
echo "== $(date +%T) (at $SECONDS s) waiting for the library build"
wait "$SM80_TESTS_PID"
echo "build rc $(cat $OUT/lib-build.rc); kernels with spills: $(grep -cE '[1-9][0-9]* bytes spill stores' $OUT/lib-build.log)"
timeout 150 "$SM80_TESTS" --gtest_filter='*Sm80Backward*:*cuda_sm80*' > $OUT/gtest.log 2>&1
echo "gtest rc $?: $(grep -cE '^\[       OK' $OUT/gtest.log) ok"
grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/gtest.log | head -12
for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 1 "$SM80_TESTS" \
    --gtest_filter='*Sm80Backward*burst_chain*:*Sm80Backward*d232_nomask_grouped*' > $OUT/gtest-$tool.log 2>&1
  echo "== $tool rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/gtest-$tool.log | tail -1) $(grep -cE '^\[       OK' $OUT/gtest-$tool.log) ok"
done
sm80_pack_logs
