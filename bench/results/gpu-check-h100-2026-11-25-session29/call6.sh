#!/bin/bash
# Twenty-ninth session, call 6: (a) gpu-check's sm80 sanitizer set again (call 5's racecheck was
# cut by the call's limit); (b) variant B of the small backward table (DqReductionsByLine with
# the large tables' statistics passes at 128 / 192, bench/results/sm80-bwd-small-lean-2026-11-25-
# s29/variant_B_filling.patch) against the landed table under the 99 KB cap, in turns (bf16,
# B = 16, H = 16, N = 2048, backward), then its small-shared-memory tests and racecheck on two
# of them.
source scripts/gpu-env.sh 2>/dev/null
P=bench/results/sm80-bwd-small-lean-2026-11-25-s29/variant_B_filling.patch
ROOT=$PWD
rm -rf /tmp/varb && mkdir -p /tmp/varb && tar --exclude='./build*' -cf - . | tar -xf - -C /tmp/varb
(cd /tmp/varb && patch -p1 -s < $ROOT/$P && echo "variant tree: patch applied")
(cd /tmp/varb && OUT=$OUT/build-varb timeout 250 scripts/gpu-check --build-dir build-varb --jobs 6 --families sm80 --head-dims "128;192" --dtypes "fp16;bf16" --no-tests --no-sanitizers --no-bench 2>&1 | tail -2) &
mkdir -p $OUT/gc
OUT=$OUT/gc timeout 330 scripts/gpu-check --families sm80 --dtypes "fp16;bf16" --no-tests --no-bench --bundle 2>&1 | tail -5
wait
echo "== at $SECONDS s"
CUR=$ROOT/build-gpu-check/tools/cli/fattn; VAR=/tmp/varb/build-varb/tools/cli/fattn
mkdir -p $OUT/perf
R="--repeats 5 --warmup 2 --no-check --json --backend cuda_sm80 --dtype bf16 --batch 16 --heads 16 --seqlen 2048 --sweep head-dim --sweep-values 128,192 --direction bwd --shared-memory-per-block 101376"
for round in 1 2; do
  for v in cur var; do
    F=$CUR; [ $v = var ] && F=$VAR
    $F bench $R > $OUT/perf/bwd_${v}_r$round.json 2>&1 || echo "failed $v $round"
    $F bench $R --causal > $OUT/perf/bwd_causal_${v}_r$round.json 2>&1 || echo "failed causal $v $round"
  done
done
echo "== perf done at $SECONDS s"
T=/tmp/varb/build-varb/tests/cuda/fattn_cuda_tests
timeout $((560 - SECONDS)) $T --gtest_filter='SmallSharedMemory/Sm80SmallSharedMemoryBackward.*:Sm80SmallSharedMemory.*' > $OUT/varb-tests.log 2>&1
echo "variant tests rc $?: $(grep -E '^\[  PASSED  \]|^\[  FAILED  \]' $OUT/varb-tests.log | head -3)"
F2='SmallSharedMemory/Sm80SmallSharedMemoryBackward.SmallTableIsAccurateAndBitwiseDeterministic/small_window_gqa_d192:SmallSharedMemory/Sm80SmallSharedMemoryBackward.SmallTableIsAccurateAndBitwiseDeterministic/small_window_d128'
timeout $((590 - SECONDS)) compute-sanitizer --tool racecheck --error-exitcode 1 $T --gtest_filter="$F2" > $OUT/varb-racecheck.log 2>&1
echo "variant racecheck rc $?: $(grep -E 'RACECHECK SUMMARY' $OUT/varb-racecheck.log | tail -1) $(grep -cE '^\[       OK' $OUT/varb-racecheck.log) ok"
cd $OUT && tar czf results.tgz perf varb-tests.log varb-racecheck.log gc/gpu-check.json 2>/dev/null; echo packed
