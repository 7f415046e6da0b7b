#!/bin/bash
# The one device call (h12-bwd80d), within LIMIT seconds (arg 1, default 290): expects the
# carried tarball build-h12bwd80d/c/bins.tar.xz (plain/libsm80bwdtimeline.so from
# build-shim.sh; lib/fattn_cuda_tests + libfattn from the candidate tree). In order of need:
# det/default in turns of the table (HEAD) and variant 251 (the deterministic 256 table with
# StagedEpilogue + MaskedPerItemPhaseBAddresses) at 256 1k/4k causal; the sm80 backward tests
# on the candidate library; memcheck + racecheck on the deterministic causal GQA case at 256;
# then 128 1k/4k causal (variant 251 is the table there: a noise control) and 256 16k causal
# with what time is left. Each step gets at most what is left.
set -o pipefail
LIMIT=${1:-290}
left() { echo $(( LIMIT - SECONDS - 5 )); }
cap() { local l; l=$(left); [ "$1" -lt "$l" ] && echo "$1" || echo "$l"; }
source scripts/gpu-env.sh
export PYTHONUNBUFFERED=1
mkdir -p /tmp/c && tar -C /tmp/c -xJf build-h12bwd80d/c/bins.tar.xz
R=/tmp/results; mkdir -p $R; S=$OUT/summary.txt
pack() { tar -C /tmp -czf $OUT/results.tgz results; }
PLAIN=/tmp/c/plain/libsm80bwdtimeline.so
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee -a $S
det() {  # variant, points, seconds, tag
  local t; t=$(cap $3); [ "$t" -lt 15 ] && { echo "det $4 skipped ($t s left)" | tee -a $S; return; }
  timeout $t python3 bench/sm80_bwd_det_ratio.py --plain $PLAIN --reps 6 --points "$2" \
    --variant $1 --json $R/det-v$1-$4.json > $R/det-v$1-$4.log 2>&1
  echo "det v$1 $4 rc $? (limit $t s, at $SECONDS s)" | tee -a $S
  grep -E "^D |variant" $R/det-v$1-$4.log | cut -c1-400 | tee -a $S
  pack
}
det 251 "256,1024,1;256,4096,1" 45 a
# The whole sm80 filter where 100 s are left (it ran 84 s in s12b), else the cases that run the
# changed kernels: every 256 case and every deterministic one.
FILTER='*cuda_sm80*:*Sm80Backward*'
[ "$(left)" -lt 160 ] && FILTER='*Sm80Backward*d256*:*Sm80Backward*deterministic*'
echo "test filter $FILTER" | tee -a $S
t=$(cap 100)
(cd /tmp/c/lib && LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH timeout $t ./fattn_cuda_tests \
   --gtest_filter="$FILTER") > $R/tests.log 2>&1
echo "tests rc $? (limit $t s, at $SECONDS s)" | tee -a $S
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests? ran|FAILED  \]" $R/tests.log | tee -a $S
pack
for tool in memcheck racecheck; do
  t=$(cap 35); [ "$t" -lt 10 ] && { echo "$tool skipped ($t s left)" | tee -a $S; continue; }
  (cd /tmp/c/lib && LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH timeout $t compute-sanitizer \
     --tool $tool ./fattn_cuda_tests \
     --gtest_filter='*Sm80Backward*deterministic_causal_gqa_d256_odd*') > $R/$tool.log 2>&1
  echo "$tool rc $? (limit $t s, at $SECONDS s)" | tee -a $S
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/$tool.log | tail -3 | tee -a $S
  pack
done
det 251 "128,1024,1;128,4096,1" 45 b
det 251 "256,16384,1" 40 c
