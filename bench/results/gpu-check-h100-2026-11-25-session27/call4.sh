#!/bin/bash
# Twenty-seventh session, call 4: two candidates in turns, then the combined tree's tests.
# (a) v55, branch s27-mask: the sm80 backward's per-score mask tests without short-circuit
#     branches (call 3's ncu: nested branches in partial tiles). old = main 331ac21, new =
#     s27-mask; buckets 64 / 128 / 256; default mode at causal points and controls, then a few
#     deterministic points.
# (b) v56, branch s27-det256 (helper): the 256 deterministic table's turn before the dQ product
#     on the mbarrier (NoMask and WindowMask kernels). old = s27-mbar, new = steps 1 + 2, step1 =
#     step 1 alone; deterministic, and a default-mode control.
# Then the combined tree (main + both, branch s27-comb): the sm80 backward and cuda_sm80 tests
# (every head dim), and synccheck / racecheck / memcheck on the deterministic turn cases.
source scripts/gpu-env.sh 2>/dev/null
C=build-s27c4
mkdir -p /tmp/cand && tar xzf $C/tree.tgz -C /tmp/cand && ln -s "$PWD/.deps" /tmp/cand/.deps
CHECKS=(--families sm80 --dtypes "fp16;bf16" --no-bench --filter '*Sm80Backward*:*cuda_sm80*')
mkdir -p $OUT/gc
( cd /tmp/cand && OUT=$OUT/gc nice -n 19 scripts/gpu-check "${CHECKS[@]}" --no-tests --no-sanitizers \
    --jobs 14 > $OUT/gc-build.txt 2>&1 ) &
BUILD=$!
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
for v in old new; do xz -dc $C/mask-$v.so.xz > /tmp/mask-$v.so; done
for v in old new step1; do xz -dc $C/det256-$v.so.xz > /tmp/det256-$v.so; done
P='64,512,1;64,1024,1;64,2048,1;64,8192,1;128,512,1;128,1024,1;128,2048,1;256,512,1;256,1024,1;256,2048,1;256,8192,1;64,512,0;128,2048,0;256,2048,0'
timeout 170 python3 bench/sm80_bwd_turns.py --old /tmp/mask-old.so --new /tmp/mask-new.so --runs 2 --points "$P" \
  > $OUT/mask_default.txt 2>&1; echo "mask default rc $?"; grep "^D=" $OUT/mask_default.txt
timeout 60 python3 bench/sm80_bwd_turns.py --old /tmp/mask-old.so --new /tmp/mask-new.so --runs 1 --deterministic \
  --points '64,512,1;64,2048,1;256,512,1' > $OUT/mask_det.txt 2>&1; echo "mask det rc $?"; grep "^D=" $OUT/mask_det.txt
timeout 150 python3 bench/sm80_bwd_turns.py --old /tmp/det256-old.so --new /tmp/det256-new.so --runs 2 --deterministic \
  --points '256,512,1;256,1024,1;256,2048,1;256,4096,1;256,16384,1;256,2048,0;256,4096,0;256,16384,0' \
  > $OUT/det256.txt 2>&1; echo "det256 rc $?"; grep "^D=" $OUT/det256.txt
timeout 60 python3 bench/sm80_bwd_turns.py --old /tmp/det256-old.so --new /tmp/det256-step1.so --runs 1 --deterministic \
  --points '256,2048,0;256,4096,0;256,512,1' > $OUT/det256_step1.txt 2>&1; echo "step1 rc $?"; grep "^D=" $OUT/det256_step1.txt
timeout 40 python3 bench/sm80_bwd_turns.py --old /tmp/det256-old.so --new /tmp/det256-new.so --runs 1 \
  --points '256,512,1;256,4096,0' > $OUT/det256_default.txt 2>&1; echo "det256 default rc $?"; grep "^D=" $OUT/det256_default.txt
echo "== $(date +%T) (at $SECONDS s) waiting for the build"
wait $BUILD; tail -3 $OUT/gc-build.txt
T=/tmp/cand/build-gpu-check/tests/cuda/fattn_cuda_tests
F='*Sm80Backward*turn_before_dq*:*Sm80Backward*burst_chain_window_gqa_d256:*Sm80Backward*burst_chain_nomask_gqa_d128:ShiftedWindows/Sm80Backward.DeterministicIsBitwiseAndAccurate/windows_d75_negative_scale_causal'
for tool in synccheck racecheck memcheck; do
  limit=60; [ $tool = racecheck ] && limit=100
  timeout $limit compute-sanitizer --tool $tool --error-exitcode 1 $T --gtest_filter="$F" > $OUT/det-$tool.log 2>&1
  echo "== det $tool rc $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $OUT/det-$tool.log | tail -1) $(grep -cE '^\[       OK' $OUT/det-$tool.log) ok"
done
echo "== $(date +%T) (at $SECONDS s) tests"
timeout $((585 - SECONDS)) $T --gtest_filter='*Sm80Backward*:*cuda_sm80*' > $OUT/gtest.log 2>&1
echo "gtest rc $?: $(grep -cE '^\[       OK' $OUT/gtest.log) ok"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/gtest.log | head
(cd $OUT && tar czf logs.tgz det-*.log gc-build.txt gtest.log gc && rm -rf det-*.log gc-build.txt gtest.log gc)
