#!/bin/bash
# The device call of h13-bwd80, within LIMIT seconds (arg 1, default 440); STEPS (arg 2, default
# "build ab tests"). The shared working tree leaves no room for carried builds (64 MiB), so
# "build" compiles on the device, in parallel: the plain shim (bench/sm80_bwd_timeline_build.sh,
# SM80_SHIMS=plain, this tree's shim: variants 261, 262, 263) into /tmp/c/plain, and the
# candidate library (a copy of the tree with cand-table.patch: LargeSharedMemoryBackwardConfig<256>
# = StaggeredDqReductions<...>, BackwardConfig<64> = SpreadReductionsWholeTiles<...>;
# fattn_cuda_tests, sm80 family, sm_90a, head dims 64;128;256) into /tmp/c/lib. "ab": the A/B in
# turns (table, variant, FA2; default mode; 2 rounds) at 256, 64, then 128 (information);
# "tests": the sm80 backward tests on the candidate library, memcheck + racecheck on one case per
# changed kernel. Each step is capped by the time left. Carry .deps (GoogleTest for CMake).
set -o pipefail
LIMIT=${1:-440}
STEPS=${2:-build ab tests}
left() { echo $(( LIMIT - SECONDS - 5 )); }
cap() { local l; l=$(left); [ "$1" -lt "$l" ] && echo "$1" || echo "$l"; }
source scripts/gpu-env.sh
export PYTHONUNBUFFERED=1
R=/tmp/results; mkdir -p $R /tmp/c; S=$OUT/summary.txt
pack() { tar -C /tmp -czf $OUT/results.tgz results; }
PLAIN=/tmp/c/plain/libsm80bwdtimeline.so
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee -a $S
if [[ $STEPS == *build* ]]; then
  SM80_SHIMS=plain bench/sm80_bwd_timeline_build.sh /tmp/c 90a 4 > $R/shim-build.log 2>&1 &
  shim=$!
  mkdir -p /tmp/cand
  tar -cf - --exclude=./bench/results --exclude='./build-*' --exclude=./.git . | tar -C /tmp/cand -xf -
  patchfile=$PWD/$(dirname "$0")/cand-table.patch
  (cd /tmp/cand && patch -p1 < "$patchfile") > $R/lib-build.log 2>&1
  (cmake -S /tmp/cand -B /tmp/libbuild -G Ninja -DFATTN_CUDA=ON -DFATTN_CUDA_FAMILIES=sm80 \
     -DFATTN_CUDA_ARCHS=90a -DFATTN_CUDA_HEAD_DIMS="64;128;256" -DFATTN_BUILD_TOOLS=OFF \
     -DCMAKE_BUILD_TYPE=Release && ninja -C /tmp/libbuild -j12 fattn_cuda_tests) >> $R/lib-build.log 2>&1
  echo "lib build rc $? (at $SECONDS s)" | tee -a $S
  mkdir -p /tmp/c/lib && cp /tmp/libbuild/tests/cuda/fattn_cuda_tests /tmp/c/lib/ && \
    cp -L /tmp/libbuild/src/libfattn.so.0 /tmp/c/lib/
  wait $shim; echo "shim build rc $? (at $SECONDS s)" | tee -a $S
  grep -E ' s$|spill' $R/shim-build.log | grep -v ' 0 bytes spill stores, 0 bytes spill loads' \
    | tail -8 | tee -a $S
  pack
fi
ab() {  # variant, points, seconds
  local t; t=$(cap $3); [ "$t" -lt 15 ] && { echo "ab v$1 skipped ($t s left)" | tee -a $S; return; }
  timeout $t python3 bench/sm80_bwd_det_ratio.py --plain $PLAIN --reps 6 --default-only \
    --points "$2" --variant $1 --json $R/ab-v$1.json > $R/ab-v$1.log 2>&1
  echo "ab v$1 rc $? (limit $t s, at $SECONDS s)" | tee -a $S
  grep -E "^D " $R/ab-v$1.log | sed 's/; rel vs flash.*//' | tee -a $S
  pack
}
POINTS="512,1;1024,1;4096,0;4096,1;16384,0"
if [[ $STEPS == *ab* ]]; then
ab 261 "$(echo "$POINTS" | sed 's/\([0-9]*,[01]\)/256,\1/g')" 90
ab 262 "$(echo "$POINTS" | sed 's/\([0-9]*,[01]\)/64,\1/g')" 80
# 263 (the same stagger on the 128 table, at the end) is information only, not a brief's lever.
fi
if [[ $STEPS == *tests* ]]; then
t=$(cap 120)
(cd /tmp/c/lib && LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH timeout $t ./fattn_cuda_tests \
   --gtest_filter='*cuda_sm80*:*Sm80Backward*') > $R/tests.log 2>&1
echo "tests rc $? (limit $t s, at $SECONDS s)" | tee -a $S
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests? ran|FAILED  \]" $R/tests.log | tee -a $S
pack
for case in '*Sm80Backward*negative_scale_causal_d256*' '*Sm80Backward*nomask_gqa_d64*'; do
  for tool in memcheck racecheck; do
    t=$(cap 32); [ "$t" -lt 10 ] && { echo "$tool $case skipped ($t s left)" | tee -a $S; continue; }
    log=$R/$tool-$(echo "$case" | tr -c 'a-zA-Z0-9_\n' '_').log
    (cd /tmp/c/lib && LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH timeout $t compute-sanitizer \
       --tool $tool ./fattn_cuda_tests --gtest_filter="$case") > $log 2>&1
    echo "$tool $case rc $? (limit $t s, at $SECONDS s)" | tee -a $S
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $log | tail -3 | tee -a $S
    pack
  done
done
fi
[[ $STEPS == *ab* ]] && ab 263 "128,1024,1;128,4096,0;128,4096,1" 45
