#!/bin/bash
# Twenty-seventh session, call 2: the mbarrier turn with warp 0 waiting on its own phase (branch
# s27-mbar 4849705; call 1's synccheck reported "Missing wait" at warp 0's arrival). The
# reproducer under synccheck (mode 3 = call 1's form, mode 4 = the library's now) and racecheck;
# old (main 8e0e0c2) / new bucket-128 shims in turns beside FA2; then the candidate tree's sm80
# 128-bucket build: the sm80 backward tests, gpu-check's sanitizer set, and racecheck / memcheck /
# synccheck on the deterministic burst-chain and shifted-window cases.
source scripts/gpu-env.sh 2>/dev/null
C=build-s27c2
mkdir -p /tmp/mbar && tar xzf $C/tree.tgz -C /tmp/mbar && ln -s "$PWD/.deps" /tmp/mbar/.deps
CHECKS=(--families sm80 --dtypes "fp16;bf16" --no-bench --head-dims 128 --filter '*Sm80Backward*:*cuda_sm80*')
mkdir -p $OUT/gc
( cd /tmp/mbar && OUT=$OUT/gc nice -n 19 scripts/gpu-check "${CHECKS[@]}" --no-tests --no-sanitizers \
    --jobs 14 > $OUT/gc-build.txt 2>&1 ) &
BUILD=$!
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
nvcc -arch=sm_90a -o /tmp/rcnb /tmp/mbar/bench/racecheck_named_barrier.cu
for m in 3 4; do for tool in synccheck racecheck; do
  compute-sanitizer --tool $tool /tmp/rcnb $m > $OUT/rcnb$m-$tool.txt 2>&1
  echo "reproducer mode $m $tool: $(grep -E 'SUMMARY|^mode' $OUT/rcnb$m-$tool.txt | tr '\n' ' ')"
done; done
xz -dc $C/old.so.xz > /tmp/old.so; xz -dc $C/new.so.xz > /tmp/new.so
python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 2 --deterministic \
  --points '128,1024,0;128,2048,0;128,4096,0;128,16384,0;128,4096,1;128,16384,1;80,2048,0;96,2048,1' \
  > $OUT/turns_det.txt 2>&1; echo "det rc $?"; grep "^D=" $OUT/turns_det.txt
python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 1 \
  --points '128,4096,0;128,4096,1' > $OUT/turns_default.txt 2>&1; echo "default rc $?"; grep "^D=" $OUT/turns_default.txt
echo "== $(date +%T) (at $SECONDS s) waiting for the build"
wait $BUILD; tail -3 $OUT/gc-build.txt
T=/tmp/mbar/build-gpu-check/tests/cuda/fattn_cuda_tests
F='*Sm80Backward*burst_chain_nomask_gqa_d128:*Sm80Backward*burst_chain_window_d80:ShiftedWindows/Sm80Backward.DeterministicIsBitwiseAndAccurate/windows_d76_rows8_one_query_17_keys:ShiftedWindows/Sm80Backward.DeterministicIsBitwiseAndAccurate/windows_d75_negative_scale_causal'
for tool in synccheck racecheck memcheck; do
  limit=80; [ $tool = racecheck ] && limit=150
  timeout $limit compute-sanitizer --tool $tool --error-exitcode 1 $T --gtest_filter="$F" > $OUT/det-$tool.log 2>&1
  echo "== det $tool rc $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $OUT/det-$tool.log | tail -1) $(grep -cE '^\[       OK' $OUT/det-$tool.log) ok"
done
( cd /tmp/mbar && OUT=$OUT/gc timeout $((590 - SECONDS)) scripts/gpu-check "${CHECKS[@]}" --jobs 14 --bundle 2>&1 | tail -12 )
(cd $OUT && tar czf logs.tgz rcnb*.txt det-*.log gc-build.txt && rm -f rcnb*.txt det-*.log gc-build.txt)
