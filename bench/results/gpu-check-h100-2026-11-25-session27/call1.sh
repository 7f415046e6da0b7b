#!/bin/bash
# Twenty-seventh session, call 1: the deterministic turn's poll move on an mbarrier (s26-mbar's
# candidate.patch, branch s27-mbar) — racecheck on the race-free reproducer (mode 3 = the mbarrier
# pattern, mode 1 = bar.arrive for comparison), old (main 8e0e0c2) / new (s27-mbar) bucket-128
# shims in turns beside FA2 (deterministic, then a default control), then the candidate tree's
# full sm80 gpu-check (tests + sanitizer set; NEXT.md item 0) and racecheck / memcheck / synccheck
# on the deterministic burst-chain and shifted-window cases.
source scripts/gpu-env.sh 2>/dev/null
C=build-s27c1
mkdir -p /tmp/mbar && tar xzf $C/tree.tgz -C /tmp/mbar && ln -s "$PWD/.deps" /tmp/mbar/.deps
mkdir -p $OUT/gc
( cd /tmp/mbar && OUT=$OUT/gc nice -n 19 scripts/gpu-check --families sm80 --dtypes "fp16;bf16" \
    --no-bench --no-tests --no-sanitizers --jobs 14 > $OUT/gc-build.txt 2>&1 ) &
BUILD=$!
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
nvcc -arch=sm_90a -o /tmp/rcnb /tmp/mbar/bench/racecheck_named_barrier.cu
for m in 3 1 0; do
  compute-sanitizer --tool racecheck /tmp/rcnb $m > $OUT/rcnb$m.txt 2>&1
  echo "reproducer mode $m: $(grep -E 'RACECHECK SUMMARY|^mode' $OUT/rcnb$m.txt | tr '\n' ' ')"
done
xz -dc $C/old.so.xz > /tmp/old.so; xz -dc $C/new.so.xz > /tmp/new.so
python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 2 --deterministic \
  --points '128,1024,0;128,2048,0;128,4096,0;128,16384,0;128,4096,1;128,16384,1;80,2048,0' \
  > $OUT/turns_det.txt 2>&1; echo "det rc $?"; grep "^D=" $OUT/turns_det.txt
python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 1 \
  --points '128,4096,0;128,4096,1' > $OUT/turns_default.txt 2>&1; echo "default rc $?"; grep "^D=" $OUT/turns_default.txt
echo "== $(date +%T) (at $SECONDS s) waiting for the build"
wait $BUILD; tail -3 $OUT/gc-build.txt
T=/tmp/mbar/build-gpu-check/tests/cuda/fattn_cuda_tests
F='*Sm80Backward*burst_chain_nomask_gqa_d128:*Sm80Backward*burst_chain_window_d80:ShiftedWindows/Sm80Backward.DeterministicIsBitwiseAndAccurate/windows_d76_rows8_one_query_17_keys:ShiftedWindows/Sm80Backward.DeterministicIsBitwiseAndAccurate/windows_d75_negative_scale_causal'
for tool in racecheck memcheck synccheck; do
  limit=80; [ $tool = racecheck ] && limit=150
  timeout $limit compute-sanitizer --tool $tool --error-exitcode 1 $T --gtest_filter="$F" > $OUT/det-$tool.log 2>&1
  echo "== det $tool rc $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $OUT/det-$tool.log | tail -1) $(grep -cE '^\[       OK' $OUT/det-$tool.log) ok"
done
( cd /tmp/mbar && OUT=$OUT/gc timeout $((590 - SECONDS)) scripts/gpu-check --families sm80 \
    --dtypes "fp16;bf16" --no-bench --jobs 14 --bundle 2>&1 | tail -14 )
(cd $OUT && tar czf logs.tgz rcnb*.txt det-*.log gc-build.txt && rm -f rcnb*.txt det-*.log gc-build.txt)
