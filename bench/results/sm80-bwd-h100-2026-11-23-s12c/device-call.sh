#!/bin/bash
# The one device call (h12-bwd80c): expects the carried tarball build-h12bwd80c/c/bins.tar.xz
# (plain/libsm80bwdtimeline.so from build-shim.sh; lib/fattn_cuda_tests + libfattn from the
# candidate tree, G = 16). det/default in turns of the table (HEAD) and variant 241 (G = 16),
# then of variant 242 (G = 32), non-causal D 64/128/256 x N 1k/4k; the sm80 backward tests on
# the candidate library; memcheck + racecheck on the deterministic NoMask GQA case at 64; then
# 241 at 16k with what time is left.
set -o pipefail
source scripts/gpu-env.sh
export PYTHONUNBUFFERED=1
mkdir -p /tmp/c && tar -C /tmp/c -xJf build-h12bwd80c/c/bins.tar.xz
R=/tmp/results; mkdir -p $R; S=$OUT/summary.txt
pack() { tar -C /tmp -czf $OUT/results.tgz results; }
PLAIN=/tmp/c/plain/libsm80bwdtimeline.so
P="64,1024,0;128,1024,0;256,1024,0;64,4096,0;128,4096,0;256,4096,0"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee -a $S
det() {  # variant, points, seconds
  timeout $3 python3 bench/sm80_bwd_det_ratio.py --plain $PLAIN --reps 6 --points "$2" \
    --variant $1 --json $R/det-v$1-$4.json > $R/det-v$1-$4.log 2>&1
  echo "det v$1 $4 rc $?" | tee -a $S
  grep -E "^D |variant" $R/det-v$1-$4.log | cut -c1-400 | tee -a $S
  pack
}
det 241 "$P" 75 a
det 242 "$P" 75 a
(cd /tmp/c/lib && LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH timeout 100 ./fattn_cuda_tests \
   --gtest_filter='*cuda_sm80*:*Sm80Backward*') > $R/tests.log 2>&1
echo "tests rc $?" | tee -a $S
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests? ran|FAILED  \]" $R/tests.log | tee -a $S
pack
for tool in memcheck racecheck; do
  (cd /tmp/c/lib && LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH timeout 35 compute-sanitizer \
     --tool $tool ./fattn_cuda_tests --gtest_filter='*Sm80Backward*nomask_gqa_d64*') \
    > $R/$tool.log 2>&1
  echo "$tool rc $?" | tee -a $S
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/$tool.log | tail -3 | tee -a $S
  pack
done
det 241 "64,16384,0;128,16384,0;256,16384,0" 45 b
