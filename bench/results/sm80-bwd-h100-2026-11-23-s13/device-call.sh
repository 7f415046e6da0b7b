#!/bin/bash
# The device calls of h13-bwd80, within LIMIT seconds (arg 1, default 330); STEPS (arg 2): "ab"
# (call 1) and/or "tests" (call 2). The working tree leaves ~4.5 MB for carried files, so each
# call carries one tarball (xz -9e, stripped): build-h13bwd80/c/bins.tar.xz holds
# plain/libsm80bwdtimeline.so (bench/sm80_bwd_timeline_build.sh, SM80_SHIMS=plain, this tree's
# shim: variants 261, 262, 263) for "ab", lib/ (fattn_cuda_tests + libfattn of the tree with the
# adopted table) for "tests". "ab": the A/B in turns (table, variant, FA2; default mode;
# 2 rounds) at 256, 64, then 128; "tests": the sm80 backward tests on the library, memcheck +
# racecheck on one case per changed kernel. Each step is capped by the time left.
set -o pipefail
LIMIT=${1:-330}
STEPS=${2:-ab tests}
left() { echo $(( LIMIT - SECONDS - 5 )); }
cap() { local l; l=$(left); [ "$1" -lt "$l" ] && echo "$1" || echo "$l"; }
source scripts/gpu-env.sh
export PYTHONUNBUFFERED=1
mkdir -p /tmp/c && tar -C /tmp/c -xJf build-h13bwd80/c/bins.tar.xz
R=/tmp/results; mkdir -p $R; S=$OUT/summary.txt
pack() { tar -C /tmp -czf $OUT/results.tgz results; }
PLAIN=/tmp/c/plain/libsm80bwdtimeline.so
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee -a $S
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
# 263 (the same stagger on the 128 table) is information only, not a lever of the brief.
ab 261 "$(echo "$POINTS" | sed 's/\([0-9]*,[01]\)/256,\1/g')" 90
ab 262 "$(echo "$POINTS" | sed 's/\([0-9]*,[01]\)/64,\1/g')" 80
ab 263 "128,1024,1;128,4096,0;128,4096,1" 45
fi
[[ $STEPS == *tests* ]] || exit 0
t=$(cap 120)
(cd /tmp/c/lib && LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH timeout $t ./fattn_cuda_tests \
   --gtest_filter='*cuda_sm80*:*Sm80Backward*') > $R/tests.log 2>&1
echo "tests rc $? (limit $t s, at $SECONDS s)" | tee -a $S
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests? ran|FAILED  \]" $R/tests.log | tee -a $S
pack
for case in '*Sm80Backward*negative_scale_causal_d256*' '*Sm80Backward*nomask_gqa_d64*'; do
  for tool in memcheck racecheck; do
    t=$(cap 35); [ "$t" -lt 10 ] && { echo "$tool $case skipped ($t s left)" | tee -a $S; continue; }
    log=$R/$tool-$(echo "$case" | tr -c 'a-zA-Z0-9_\n' '_').log
    (cd /tmp/c/lib && LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH timeout $t compute-sanitizer \
       --tool $tool ./fattn_cuda_tests --gtest_filter="$case") > $log 2>&1
    echo "$tool $case rc $? (limit $t s, at $SECONDS s)" | tee -a $S
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $log | tail -3 | tee -a $S
    pack
  done
done
