#!/bin/bash
# Twenty-sixth session, call 7:
# 1. s26-det256 (the deterministic 256 table's masked kernels on the deferred hand-over with the
#    turn in a shared slot, MaskedDqTurnSlot; the poll move in its NoMask kernel on sm_90a,
#    UnmaskedDqTurnBeforeDqProduct) in turns beside main and FA2, deterministic and default;
# 2. v37 at more shapes (old = main before v37, new = v37), beside cuDNN, outputs bit for bit;
# 3. the merged tree's (main + s26-det256) sm80 backward tests, memcheck and synccheck on the
#    burst-chain cases (racecheck: call 8).
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
C=build-s26d
sm80_build_tree_tests $C/tree.tgz "128;256" 14 330
for v in old new sm90old sm90new; do xz -dc $C/$v.so.xz > /tmp/$v.so; done
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 2 --deterministic \
  --points '256,1024,1;256,2048,1;256,4096,1;256,8192,1;256,16384,1;256,4096,0' \
  > $OUT/turns_det256.txt 2>&1; echo "det rc $?"; tail -7 $OUT/turns_det256.txt
python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 1 \
  --points '256,4096,1;256,4096,0' > $OUT/turns_default.txt 2>&1; echo "default rc $?"; tail -3 $OUT/turns_default.txt
cd bench
for s in "2,8:240,8192,1" "1,32:144,8192,1" "5,16:144,4096,1" "2,10:200,8192,1" "6,12:256,4096,1" \
         "3,10:256,8192,1" "1,40:256,2048,1" "2,16:96,8192,1"; do
  shape=${s%%:*}
  timeout 60 python3 sm90_vs_cudnn.py --lib old=/tmp/sm90old.so --lib new=/tmp/sm90new.so --bench \
    --same-outputs --no-flash --rounds 6 --shape $shape --points "${s#*:}" 2>&1 \
    | grep "^D=\|same outputs\|failed" | sed "s/^/B,H=$shape /" | tee -a $OUT/ab_shapes.txt
done
cd ..
echo "== $(date +%T) (at $SECONDS s) waiting for the library build"
wait "$SM80_TESTS_PID"
echo "build rc $(cat $OUT/lib-build.rc); kernels with spills: $(grep -cE '[1-9][0-9]* bytes spill stores' $OUT/lib-build.log)"
timeout 150 "$SM80_TESTS" --gtest_filter='*Sm80Backward*:*cuda_sm80*' > $OUT/gtest.log 2>&1
echo "gtest rc $?: $(grep -cE '^\[       OK' $OUT/gtest.log) ok"
grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/gtest.log | head -12
for tool in memcheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 1 "$SM80_TESTS" \
    --gtest_filter='*Sm80Backward*burst_chain*' > $OUT/gtest-$tool.log 2>&1
  echo "== $tool rc $?: $(grep -E 'ERROR SUMMARY' $OUT/gtest-$tool.log | tail -1) $(grep -cE '^\[       OK' $OUT/gtest-$tool.log) ok"
done
sm80_pack_logs
