#!/bin/bash
# The device call of h13-bwd80c (h13-bwd80b's device-call.sh with variant 281), within LIMIT
# seconds (arg 1, default 350). Carry .deps (GoogleTest for CMake) and build-h13bwd80c/carry
# (src.tar.xz: `git archive` of the option commit without bench/results and docs, so that
# uncommitted files of the shared tree do not enter the builds). Builds on the device, in
# parallel: the plain and the timeline shim (bench/sm80_bwd_timeline_build.sh of the snapshot:
# variant 281) and the candidate library (the snapshot with cand-table.patch: both 256 tables
# with MaskedItemSourcesInSharedMemory; sm80 family, sm_90a, head dims 64;128;256). Then, each
# step capped by the time left: the A/B in turns (bench/sm80_bwd_det_ratio.py --variant 281: FA2
# fwd, table default, table deterministic, 281 default, 281 deterministic, FA2 bwd; 2 rounds) at
# 256; the sm80 backward tests on the candidate library; memcheck + racecheck on
# strided_window_d256, memcheck on range_search_causal_d256, racecheck on
# negative_scale_causal_d256 (the fallback copies); the timeline of the table and of 281 at 4k
# causal (copy issue per step).
set -o pipefail
LIMIT=${1:-350}
left() { echo $(( LIMIT - SECONDS - 5 )); }
cap() { local l; l=$(left); [ "$1" -lt "$l" ] && echo "$1" || echo "$l"; }
source scripts/gpu-env.sh
export PYTHONUNBUFFERED=1
HERE=$PWD/$(dirname "$0")
R=/tmp/results; mkdir -p $R /tmp/c /tmp/snap; S=$OUT/summary.txt
pack() { tar -C /tmp -czf $OUT/results.tgz results; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee -a $S
tar -C /tmp/snap -xJf build-h13bwd80c/carry/src.tar.xz
cp -r /tmp/snap /tmp/cand && (cd /tmp/cand && patch -p1 < "$HERE/cand-table.patch") > $R/lib-build.log 2>&1
(cd /tmp/snap && SM80_SHIMS=plain bench/sm80_bwd_timeline_build.sh /tmp/c 90a 4) > $R/shim-plain.log 2>&1 &
plain=$!
(cd /tmp/snap && SM80_SHIMS=timeline bench/sm80_bwd_timeline_build.sh /tmp/c 90a 4) > $R/shim-timeline.log 2>&1 &
timeline=$!
(cmake -S /tmp/cand -B /tmp/libbuild -G Ninja -DFATTN_CUDA=ON -DFATTN_CUDA_FAMILIES=sm80 \
   -DFATTN_CUDA_ARCHS=90a -DFATTN_CUDA_HEAD_DIMS="64;128;256" -DFATTN_BUILD_TOOLS=OFF \
   -DCMAKE_BUILD_TYPE=Release && ninja -C /tmp/libbuild -j8 fattn_cuda_tests) >> $R/lib-build.log 2>&1
echo "lib build rc $? (at $SECONDS s)" | tee -a $S
mkdir -p /tmp/c/lib && cp /tmp/libbuild/tests/cuda/fattn_cuda_tests /tmp/c/lib/ && \
  cp -L /tmp/libbuild/src/libfattn.so.0 /tmp/c/lib/
wait $plain; echo "plain shim build rc $? (at $SECONDS s)" | tee -a $S
grep -E ' s$|spill' $R/shim-plain.log | grep -v ' 0 bytes spill stores, 0 bytes spill loads' \
  | tail -8 | tee -a $S
pack
PLAIN=/tmp/c/plain/libsm80bwdtimeline.so
t=$(cap 90)
(cd /tmp/snap && timeout $t python3 bench/sm80_bwd_det_ratio.py --plain $PLAIN --reps 6 \
   --variant 281 --json $R/ab-v281.json \
   --points "256,512,1;256,1024,1;256,4096,1;256,16384,1;256,4096,0") > $R/ab-v281.log 2>&1
echo "ab v281 rc $? (limit $t s, at $SECONDS s)" | tee -a $S
grep -E "^D |variant 281" $R/ab-v281.log | sed 's/; rel vs flash.*//' | tee -a $S
pack
t=$(cap 170)
(cd /tmp/c/lib && LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH timeout $t ./fattn_cuda_tests \
   --gtest_filter='*cuda_sm80*:*Sm80Backward*') > $R/tests.log 2>&1
echo "tests rc $? (limit $t s, at $SECONDS s)" | tee -a $S
grep -E "^\[  PASSED  \] [0-9]|^\[  FAILED  \]|^\[  SKIPPED \] [0-9]|tests? ran" $R/tests.log | tee -a $S
pack
for run in 'memcheck *Sm80Backward*strided_window_d256*' 'racecheck *Sm80Backward*strided_window_d256*' \
           'memcheck *Sm80Backward*range_search_causal_d256*' \
           'racecheck *Sm80Backward*negative_scale_causal_d256*'; do
  tool=${run%% *}; case=${run#* }
  t=$(cap 35); [ "$t" -lt 10 ] && { echo "$tool $case skipped ($t s left)" | tee -a $S; continue; }
  log=$R/$tool-$(echo "$case" | tr -c 'a-zA-Z0-9_\n' '_').log
  (cd /tmp/c/lib && LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH timeout $t compute-sanitizer \
     --tool $tool ./fattn_cuda_tests --gtest_filter="$case") > $log 2>&1
  echo "$tool $case rc $? (limit $t s, at $SECONDS s)" | tee -a $S
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $log | tail -3 | tee -a $S
  pack
done
wait $timeline; echo "timeline shim build rc $? (at $SECONDS s)" | tee -a $S
for v in 0 281; do
  t=$(cap 35); [ "$t" -lt 15 ] && { echo "timeline v$v skipped ($t s left)" | tee -a $S; continue; }
  (cd /tmp/snap && timeout $t python3 bench/sm80_bwd_timeline.py \
     --timeline /tmp/c/timeline/libsm80bwdtimeline.so --plain $PLAIN --out $R/tl$v \
     --variant $v --reps 4 --points "256,4096,1") > $R/tl$v.log 2>&1
  echo "timeline v$v rc $? (limit $t s, at $SECONDS s)" | tee -a $S
  pack
done
