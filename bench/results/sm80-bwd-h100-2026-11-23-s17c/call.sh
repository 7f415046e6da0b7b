#!/bin/bash
# h17-bwd128swz call: DqStagingPairSwizzle at D = 128 (rows of 8 chunks, XOR (2·row) % 8), in
# turns beside main's 128 tables and FA2 (sm80_bwd_det_ratio.py: variant 182 = pair swizzle +
# split offsets = the candidate tree's tables, both modes; 181 = pair swizzle alone, default mode),
# shim of SM80_TIMELINE_AHEAD_ONLY=1 SM80_SHIMS=plain bench/sm80_bwd_timeline_build.sh (commit
# 962e228: main's tables + the variants), while the library's sm80 tests build (head dim 128,
# fp16 + bf16, sm_90a) from the candidate tree (commit d9fa96c); then the D = 128 sm80 GPU tests,
# racecheck + memcheck on a masked d128 case. Run from the repository root.
C=build-h17-bwd128swz/carry
source scripts/gpu-env.sh
source bench/sm80_call_steps.sh
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/bench
LIMIT=${LIMIT:-165}
left() { echo $(( LIMIT - SECONDS )); }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
sm80_build_tree_tests $C/tree.tgz "128" 14 120
SHIM=$C/shim/libsm80bwdtimeline.so
PTS="128,1024,0;128,1024,1;128,4096,0;128,4096,1;128,16384,0;128,16384,1"
ab() {  # variant, timeout, extra flags
  timeout "$2" python3 bench/sm80_bwd_det_ratio.py --plain $SHIM --points "$PTS" --variant "$1" \
    --reps 5 --json "$OUT/ab$1.json" $3 > "$OUT/ab$1.log" 2>&1
  local rc=$?
  echo "== $(date +%T) (at $SECONDS s) variant $1 rc $rc"; cut -c1-300 "$OUT/ab$1.log"
}
ab 182 70
t=$(( $(left) - 75 )); [ "$t" -gt 40 ] && t=40
if [ "$t" -ge 20 ]; then ab 181 "$t" --default-only; else echo "181 skipped ($t s)"; fi
echo "== $(date +%T) (at $SECONDS s) waiting for the library build"
wait "$SM80_TESTS_PID"
echo "build rc $(cat "$OUT/lib-build.rc"); kernels with spills:" \
  "$(grep -cE '[1-9][0-9]* bytes spill stores' "$OUT/lib-build.log")"; tail -2 "$OUT/lib-build.log"
t=$(( $(left) - 40 )); [ "$t" -gt 60 ] && t=60
timeout "$t" "$SM80_TESTS" --gtest_filter='*cuda_sm80*_D128*:*Sm80Backward*d128*' > "$OUT/gtest.log" 2>&1
rc=$?
echo "== $(date +%T) (at $SECONDS s) gtest rc $rc (limit $t s): $(grep -cE '^\[       OK' "$OUT/gtest.log") ok"
grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" "$OUT/gtest.log" | head -12
grep -E 'Failure|error|differs' "$OUT/gtest.log" | head -20
SAN='*Sm80Backward*negative_scale_causal_d128*'
for tool in memcheck racecheck; do
  t=$(( $(left) - 3 )); [ "$t" -gt 40 ] && t=40
  if [ "$t" -lt 10 ]; then echo "$tool skipped ($t s left)"; continue; fi
  timeout "$t" compute-sanitizer --tool "$tool" --error-exitcode 1 "$SM80_TESTS" \
    --gtest_filter="$SAN" > "$OUT/gtest-$tool.log" 2>&1
  rc=$?
  echo "== $(date +%T) $tool rc $rc (limit $t s): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' \
    "$OUT/gtest-$tool.log" | tail -1)" "$(grep -cE '^\[       OK' "$OUT/gtest-$tool.log") ok"
done
echo "== at $SECONDS s"
sm80_pack_logs
