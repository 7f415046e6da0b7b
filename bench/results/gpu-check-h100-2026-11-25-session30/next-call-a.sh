#!/bin/bash
# For the next session's first device call (written at the end of the thirtieth session):
# correctness of everything this session left untested on a GPU. The tree gets, in order,
# 99kb-tiles.patch (s30-fwdsmall + s30-bwd256small, backed out of main untested), s30-bwdsmall2's
# candidate.patch and s30-bwd256dq's candidate.patch (bench/results/ parts excluded); then it
# builds simt + sm80 (every bucket and dtype, sm_90a), runs the GPU tests of what they touch and
# the sanitizers on the new kernels, including the class-6 kernels merged as Backward v59 without
# a sanitizer run. Packs $OUT after every step (the device tool returns at most 8 files).
# Run with timeout_s 600; the timings are next-call-b.sh / next-call-c.sh.
source scripts/gpu-env.sh 2>/dev/null
D=bench/results/gpu-check-h100-2026-11-25-session30
pack() { (cd $OUT && tar czf results.tgz --exclude=results.tgz . 2>/dev/null); echo "== $1 at $SECONDS s"; }
patch -p1 -s < $D/99kb-tiles.patch && echo "99kb-tiles.patch applied" || exit 1
for c in sm80-s30-bwdsmall2 sm80-s30-bwd256dq; do
  python3 - bench/results/$c/candidate.patch > /tmp/$c.src.patch <<'PY'
import re, sys
text = open(sys.argv[1]).read()
parts = re.split(r'(?m)^(?=diff --git )', text)
sys.stdout.write(''.join(p for p in parts if p.startswith('diff --git') and ' b/bench/results/' not in p.split('\n')[0]))
PY
  patch -p1 -s < /tmp/$c.src.patch && echo "$c applied" || exit 1
done
timeout 300 scripts/gpu-check --build-dir build-new --families "simt;sm80" --no-tests --no-sanitizers --no-bench > $OUT/build.log 2>&1
tail -4 $OUT/build.log
pack build
T=build-new/tests/cuda/fattn_cuda_tests
timeout 170 $T --gtest_filter='SmallSharedMemory/*:Sm80SmallSharedMemory.*:Sm80ForwardSmallSharedMemory.*:SharedMemorySelector.*:*smem101376*:*smem166912*:*Sm80Backward*class*:ClusterPairDq/*:Sm80/Sm80Backward.*d256*:FusedDqConversion/*table256*' > $OUT/tests.log 2>&1
echo "tests rc $?: $(grep -E '^\[  PASSED  \]|^\[  FAILED  \]' $OUT/tests.log | head -3)"; grep -E '^\[  FAILED  \]' $OUT/tests.log | head -20
pack tests
for f in 'SmallSharedMemory/Sm80SmallSharedMemoryBackward.SmallTableIsAccurateAndBitwiseDeterministic/small_window_gqa_d256' '*Sm80Backward*class6_dq_warps_window_gqa_d96*' 'ClusterPairDq/*' '*Sm80ForwardShapes*small_d201_packed_8_heads_causal*'; do
  for tool in racecheck memcheck; do
    [ $SECONDS -gt 560 ] && break 2
    timeout 40 compute-sanitizer --tool $tool --error-exitcode 9 $T --gtest_filter="$f" > $OUT/san_${tool}_$(echo "$f" | tr -c 'A-Za-z0-9_\n' '_').log 2>&1; echo "$tool $f: rc $?"
  done
  pack "sanitizers $f"
done
