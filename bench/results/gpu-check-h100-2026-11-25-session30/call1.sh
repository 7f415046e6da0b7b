#!/bin/bash
# Thirtieth session, call 1: the 99 KB tiles of s30-fwdsmall (forward: 13-step narrow tile at 256,
# shifted windows for packed rows at 192 / 256) and s30-bwd256small (backward at 256: 64 x 32,
# V in registers). Old = the session's start (call1-src.patch reversed on a copy of the tree).
# 1. builds: new = simt + sm80, all buckets and dtypes (the tests); old = sm80, 192 / 256, bf16.
# 2. capped (99 KB) forward old / new in turns, two rounds; capped backward at 192..256: sm80 (new)
#    beside simt (what those problems ran before); uncapped controls.
# 3. the new build's small-shared-memory tests and the forward shapes suite; memcheck / racecheck
#    on new kernels' cases.
source scripts/gpu-env.sh 2>/dev/null
D=bench/results/gpu-check-h100-2026-11-25-session30
ROOT=$PWD
rm -rf /tmp/old && mkdir -p /tmp/old && tar --exclude='./build*' -cf - . | tar -xf - -C /tmp/old
(cd /tmp/old && patch -R -p1 -s < $ROOT/$D/call1-src.patch && echo "old tree: session start")
(cd /tmp/old && OUT=$OUT/build-old timeout 240 scripts/gpu-check --build-dir build-old --jobs 6 --families sm80 --head-dims "192;256" --dtypes bf16 --no-tests --no-sanitizers --no-bench 2>&1 | tail -2) &
OUT=$OUT/build-new timeout 260 scripts/gpu-check --build-dir build-new --jobs 12 --families "simt;sm80" --no-tests --no-sanitizers --no-bench 2>&1 | tail -3
wait
echo "== builds done at $SECONDS s"
grep -h "spill" build-new/*.log $OUT/build-new/*.log 2>/dev/null | grep -v " 0 bytes spill" | head -5
OLD=/tmp/old/build-old/tools/cli/fattn; NEW=$ROOT/build-new/tools/cli/fattn
mkdir -p $OUT/perf
C="--shared-memory-per-block 101376"
R="--repeats 5 --warmup 2 --no-check --json --dtype bf16 --batch 16 --heads 16 --seqlen 2048 --sweep head-dim"
for round in 1 2; do
  for v in old new; do
    F=$OLD; [ $v = new ] && F=$NEW
    $F bench $R --backend cuda_sm80 --direction fwd $C --sweep-values 193,200,208,201,229,256 > $OUT/perf/fwd256_${v}_r$round.json 2>&1 || echo "failed fwd256 $v $round"
    $F bench $R --backend cuda_sm80 --direction fwd $C --sweep-values 137,151,185,192 > $OUT/perf/fwd192_${v}_r$round.json 2>&1 || echo "failed fwd192 $v $round"
    $F bench $R --backend cuda_sm80 --direction fwd $C --causal --sweep-values 200,201,229 > $OUT/perf/fwdc_${v}_r$round.json 2>&1 || echo "failed fwdc $v $round"
  done
  $NEW bench $R --backend cuda_sm80 --direction fwd --sweep-values 200,201,229,256 > $OUT/perf/fwd_uncapped_new_r$round.json 2>&1
  $NEW bench $R --backend cuda_sm80 --direction bwd $C --sweep-values 192,200,229,256 > $OUT/perf/bwd_sm80_capped_r$round.json 2>&1 || echo "failed bwd sm80 $round"
  $NEW bench $R --backend cuda_sm80 --direction bwd $C --causal --sweep-values 192,200,256 > $OUT/perf/bwdc_sm80_capped_r$round.json 2>&1 || echo "failed bwdc sm80 $round"
  $NEW bench $R --backend cuda_sm80 --direction bwd --sweep-values 192,200,256 > $OUT/perf/bwd_sm80_uncapped_r$round.json 2>&1
done
$NEW bench $R --backend cuda_simt --direction bwd $C --sweep-values 200,256 > $OUT/perf/bwd_simt_capped.json 2>&1 || echo "failed simt"
echo "== perf done at $SECONDS s"
T=build-new/tests/cuda/fattn_cuda_tests
timeout $((470 - SECONDS)) $T --gtest_filter='SmallSharedMemory/*:Sm80SmallSharedMemory.*:Sm80ForwardSmallSharedMemory.*:SharedMemorySelector.*:*smem101376*:*smem166912*:*Sm80ForwardShapes*' > $OUT/tests.log 2>&1
echo "tests rc $?: $(grep -E '^\[  PASSED  \]|^\[  FAILED  \]' $OUT/tests.log | head -3) at $SECONDS s"
grep -E '^\[  FAILED  \]' $OUT/tests.log | head -20
for f in 'SmallSharedMemory/Sm80SmallSharedMemoryBackward.SmallTableIsAccurateAndBitwiseDeterministic/small_window_gqa_d256' 'SmallSharedMemory/Sm80SmallSharedMemoryBackward.SmallTableIsAccurateAndBitwiseDeterministic/small_packed_causal_gqa_d229' ; do
  for tool in memcheck racecheck; do
    timeout 40 compute-sanitizer --tool $tool --error-exitcode 9 $T --gtest_filter="$f" > $OUT/san_${tool}_$(basename $f).log 2>&1; echo "$tool $(basename $f): rc $?"
  done
done
F2=$(grep -o 'SmallSharedMemory/Sm80ForwardShapes[^ ]*packed_8_heads[^ ]*' $OUT/tests.log | head -2 | tr '\n' ':')
[ -n "$F2" ] && for tool in memcheck racecheck; do timeout 40 compute-sanitizer --tool $tool --error-exitcode 9 $T --gtest_filter="$F2" > $OUT/san_${tool}_fwd.log 2>&1; echo "$tool fwd packed ($F2): rc $?"; done
echo "== done at $SECONDS s"
cd $OUT && tar czf results.tgz perf tests.log san_*.log build-new/*.json 2>/dev/null; ls
