#!/bin/bash
# For the next session's first device call (written at the end of the thirtieth): tests and times
# the 99 KB tiles that were backed out of main untested (99kb-tiles.patch), and sanitizes the
# class-6 backward kernels that were merged (Backward v59) without a sanitizer run.
# new = this tree + 99kb-tiles.patch; old = this tree. Packs $OUT after every step (the device
# tool returns at most 8 files; call 1 lost its timings by packing only at the end), and stops
# starting timings when the time left runs short. Run with timeout_s 600.
source scripts/gpu-env.sh 2>/dev/null
D=bench/results/gpu-check-h100-2026-11-25-session30
ROOT=$PWD
LIMIT=${LIMIT:-570}
pack() { (cd $OUT && tar czf results.tgz --exclude=results.tgz . 2>/dev/null); echo "== $1 at $SECONDS s"; }
rm -rf /tmp/old && mkdir -p /tmp/old && tar --exclude='./build*' -cf - . | tar -xf - -C /tmp/old
patch -p1 -s < $D/99kb-tiles.patch && echo "new tree: 99kb-tiles.patch applied"
(cd /tmp/old && OUT=/tmp/build-old-out timeout 240 scripts/gpu-check --build-dir build-old --jobs 5 --families sm80 --head-dims "192;256" --dtypes bf16 --no-tests --no-sanitizers --no-bench > /tmp/build-old.log 2>&1) &
OUT=/tmp/build-new-out timeout 260 scripts/gpu-check --build-dir build-new --jobs 11 --families "simt;sm80" --no-tests --no-sanitizers --no-bench > $OUT/build-new.log 2>&1
wait; cp /tmp/build-old.log $OUT/; cp /tmp/build-new-out/gpu-check.json $OUT/build-new.json 2>/dev/null
pack builds
T=build-new/tests/cuda/fattn_cuda_tests
timeout 150 $T --gtest_filter='SmallSharedMemory/*:Sm80SmallSharedMemory.*:Sm80ForwardSmallSharedMemory.*:SharedMemorySelector.*:*smem101376*:*smem166912*:*Sm80Backward*class*' > $OUT/tests.log 2>&1
echo "tests rc $?: $(grep -E '^\[  PASSED  \]|^\[  FAILED  \]' $OUT/tests.log | head -3)"; grep -E '^\[  FAILED  \]' $OUT/tests.log | head -20
pack tests
for f in 'SmallSharedMemory/Sm80SmallSharedMemoryBackward.SmallTableIsAccurateAndBitwiseDeterministic/small_window_gqa_d256' '*Sm80Backward*class6_dq_warps*' '*Sm80ForwardShapes*small_d201_packed_8_heads_causal*'; do
  for tool in memcheck racecheck; do
    timeout 45 compute-sanitizer --tool $tool --error-exitcode 9 $T --gtest_filter="$f" > $OUT/san_${tool}_$(echo $f | tr -c 'a-z0-9_\n' '_').log 2>&1; echo "$tool $f: rc $?"
  done
done
pack sanitizers
OLD=/tmp/old/build-old/tools/cli/fattn; NEW=$ROOT/build-new/tools/cli/fattn
mkdir -p $OUT/perf
R="--repeats 5 --warmup 2 --no-check --json --dtype bf16 --batch 16 --heads 16 --seqlen 2048 --sweep head-dim --shared-memory-per-block 101376"
for round in 1 2; do
  for v in old new; do
    [ $SECONDS -gt $((LIMIT - 60)) ] && break 2
    F=$OLD; [ $v = new ] && F=$NEW
    $F bench $R --backend cuda_sm80 --direction fwd --sweep-values 151,192,200,201,229,256 > $OUT/perf/fwd_${v}_r$round.json 2>&1
    pack "fwd $v r$round"
  done
  [ $SECONDS -gt $((LIMIT - 60)) ] && break
  $NEW bench $R --backend cuda_sm80 --direction bwd --sweep-values 192,200,256 > $OUT/perf/bwd_sm80_r$round.json 2>&1
  pack "bwd sm80 r$round"
done
[ $SECONDS -lt $((LIMIT - 40)) ] && $NEW bench $R --backend cuda_simt --direction bwd --sweep-values 200,256 > $OUT/perf/bwd_simt.json 2>&1
pack done
