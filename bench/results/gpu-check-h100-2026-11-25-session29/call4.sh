#!/bin/bash
# Twenty-ninth session, call 4: the small backward table's lean full-width kernels (s29-bwdlean)
# against the table before them (the same tree with candidate.patch reversed), both under the
# 99 KB cap on the H100, in turns: bf16, B = 16, H = 16, N = 2048, backward; then the new build's
# small-shared-memory tests. Builds pruned to sm80, buckets 64 / 128 / 192, bf16 (the kernels
# timed; the full check is call 5).
source scripts/gpu-env.sh 2>/dev/null
P=bench/results/sm80-bwd-small-lean-2026-11-25-s29/candidate.patch
ROOT=$PWD
rm -rf /tmp/old && mkdir -p /tmp/old && tar --exclude='./build*' -cf - . | tar -xf - -C /tmp/old
(cd /tmp/old && patch -R -p1 -s < $ROOT/$P && echo "old tree: patch reversed")
B="--families sm80 --head-dims 64;128;192 --dtypes bf16 --no-tests --no-sanitizers --no-bench"
(cd /tmp/old && OUT=$OUT/build-old timeout 200 scripts/gpu-check --build-dir build-old $B 2>&1 | tail -2) &
OUT=$OUT/build-new timeout 200 scripts/gpu-check --build-dir build-new --jobs 8 $B 2>&1 | tail -2
wait
OLD=/tmp/old/build-old/tools/cli/fattn; NEW=$ROOT/build-new/tools/cli/fattn
echo "== builds done at $SECONDS s"
mkdir -p $OUT/perf
R="--repeats 5 --warmup 2 --no-check --json --backend cuda_sm80 --dtype bf16 --batch 16 --heads 16 --seqlen 2048 --sweep head-dim --direction bwd --shared-memory-per-block 101376"
for round in 1 2; do
  for v in old new; do
    F=$OLD; [ $v = new ] && F=$NEW
    $F bench $R --sweep-values 64,96,128,160,192 > $OUT/perf/bwd_${v}_r$round.json 2>&1 || echo "failed $v $round"
    $F bench $R --causal --sweep-values 64,128,192 > $OUT/perf/bwd_causal_${v}_r$round.json 2>&1 || echo "failed causal $v $round"
  done
done
echo "== perf done at $SECONDS s"
T=build-new/tests/cuda/fattn_cuda_tests
timeout $((580 - SECONDS)) $T --gtest_filter='SmallSharedMemory/*:Sm80SmallSharedMemory.*:*smem101376*' > $OUT/tests.log 2>&1
echo "tests rc $?: $(grep -E '^\[  PASSED  \]|^\[  FAILED  \]' $OUT/tests.log | head -5)"
grep -E '^\[  FAILED  \]' $OUT/tests.log | head
cd $OUT && tar czf results.tgz perf tests.log && echo packed
