#!/bin/bash
# One call on the GPU machine for the sm80 backward: memcheck on the small cases, the bench
# script's checks (every head dim of issue 5, fp16/bf16, masks, GQA, layouts, deterministic run
# twice and compared bitwise), the backward tile variants, the sweep against SDPA flash/cuDNN,
# and optionally the library's GPU tests.
# Expects (carried): build-bwd/shimlib/libsm80shim.so (bench/sm80_build.sh build-bwd/shim 90a),
# .deps; for the tests build-bwd/testbin/{fattn_cuda_tests,libfattn.so.0} (a library build with
# FATTN_CUDA_FAMILIES=sm80, FATTN_CUDA_ARCHS=90a).
# Usage: [SM80_STEPS="check variants bench memcheck racecheck tests ncu compare vsanitize ncufa2
#         ncucount testsanitize"] [SM80_TEST_SANITIZE_FILTER=<gtest filter> (testsanitize)]
#        [SM80_PROFILE_VARIANTS=0,9 (ncufa2: our variants beside FA2's backward)]
#        [SM80_BENCH_ARGS=...] [SM80_COMPARE_ARGS=... (default --check --bench)]
#        [SM80_BWD_DIR=build-bwd (where the binaries are)] [SM80_BASELINE=...] [SM80_COMPARE_S=240]
#        bench/sm80_bwd_device_run.sh
# compare: bench/sm80_bwd_compare.py --check --bench, the candidate tiles against the committed
# kernel (SM80_BWD_DIR/shim_head/libsm80shim.so, built from a copy of HEAD) and SDPA flash;
# vsanitize: memcheck and racecheck of the candidates on the small shapes. SM80_BASELINE: the
# baseline library (default SM80_BWD_DIR/shim_head/libsm80shim.so; the second round of the fifth
# session passed the shim itself, whose table is the committed one). ncucount: executed
# instructions and cycles only (ncu --metrics), of SM80_PROFILE_VARIANTS and FA2 (SM80_PROFILE_ARGS,
# e.g. "--profile-dim 256", goes to bench/sm80_bwd_compare.py --profile).
# variants (bench/sm80_vs_torch.py --bwd-variants) needs a shim built with
# SM80_NVCC_FLAGS=-DFATTN_BENCH_EARLIER_BWD_VARIANTS (its variants are no longer compiled by
# default); ncufa2 is the comparison with FA2's backward (docs/perf-notes.md "Backward v4").
# Logs straight into $OUT as each step ends (a call cut off at its time limit still returns
# what finished; at most 8 files come back): variants/bench .json and the logs of memcheck, racecheck, check,
# bench, ncu, gtest. A short summary on stdout, the sweep's table after it.
set -o pipefail
source scripts/gpu-env.sh
export PYTHONUNBUFFERED=1
DIR=${SM80_BWD_DIR:-build-bwd}
LIB=${SM80_LIB:-$DIR/shimlib/libsm80shim.so} S=bench/sm80_vs_torch.py
STEPS=${SM80_STEPS:-check variants bench memcheck}
# Binaries built here travel packed (the carry limit): $DIR/carry/bins.tgz holds shimlib/,
# testbin/ and (for compare) shim_head/.
[ -f $DIR/carry/bins.tgz ] && tar -C $DIR -xzf $DIR/carry/bins.tgz
LOGS=$OUT TMP=$(mktemp -d)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
step_tests() {
  export LD_LIBRARY_PATH=$PWD/$DIR/testbin:$LD_LIBRARY_PATH
  timeout 100 $DIR/testbin/fattn_cuda_tests --gtest_filter='*cuda_sm80*:*Sm80Backward*' \
    > $LOGS/gtest.log 2>&1
  echo "gtest rc $?: $(grep -cE '^\[       OK' $LOGS/gtest.log) ok"
  grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" $LOGS/gtest.log | head -12
}
step_memcheck() {
  timeout 90 compute-sanitizer --tool memcheck python3 $S --lib $LIB --small \
    > $LOGS/memcheck.log 2>&1
  echo "memcheck rc $?: $(grep -E 'ERROR SUMMARY' $LOGS/memcheck.log | tail -1)" \
    "$(grep 'check:' $LOGS/memcheck.log)"
}
step_racecheck() {
  # Shared-memory hazards (the main loop has two barriers per query tile, not three).
  timeout 120 compute-sanitizer --tool racecheck python3 $S --lib $LIB --small \
    > $LOGS/racecheck.log 2>&1
  echo "racecheck rc $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $LOGS/racecheck.log | tail -1)" \
    "$(grep 'check:' $LOGS/racecheck.log)"
}
step_check() {
  timeout 100 python3 $S --lib $LIB --check > $LOGS/check.log 2>&1
  echo "check rc $?: $(grep -E 'check:' $LOGS/check.log)"; grep FAIL $LOGS/check.log | head -5
}
step_variants() {
  timeout 60 python3 $S --lib $LIB --bwd-variants --json $OUT/variants.json > $TMP/variants.log 2>&1
  echo "variants rc $?"; cut -c1-150 $TMP/variants.log
}
step_bench() {
  timeout 150 python3 $S --lib $LIB --bench ${SM80_BENCH_ARGS:---no-odd} --json $OUT/bench.json \
    > $LOGS/bench.log 2>&1
  echo "bench rc $?"; grep -v '^{' $LOGS/bench.log | grep -v '^|---'
}
step_ncu() {
  # Stall reasons and memory-unit throughputs of one backward (bf16, D=128, N=4096, B=4, H=16).
  timeout 90 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
    --section Occupancy --section LaunchStats -k regex:backward_kernel -c 1 \
    python3 $S --lib $LIB --profile > $LOGS/ncu.log 2>&1
  echo "ncu rc $?"
  grep -E "Throughput|Stall|Warp Cycles|Registers|Achieved Occupancy|Duration|Hit Rate" \
    $LOGS/ncu.log | head -40
}
step_compare() {
  timeout ${SM80_COMPARE_S:-240} python3 bench/sm80_bwd_compare.py --lib $LIB \
    --baseline ${SM80_BASELINE:-$DIR/shim_head/libsm80shim.so} \
    ${SM80_COMPARE_ARGS:---check --bench} \
    --json $OUT/compare.json \
    > $LOGS/compare.log 2>&1
  echo "compare rc $?"; grep -E "^(==|FAIL|candidate|\||deterministic|  D=)" $LOGS/compare.log
}
step_ncufa2() {
  # Ours (the table and the variants in SM80_PROFILE_VARIANTS, default 0) and FA2's backward
  # (PyTorch's flash backend) on the same tensors, bf16 D = 128 N = 4096 non-causal: stall
  # reasons, instruction mix, occupancy, and the source page (SASS with per-instruction samples
  # and executed counts: FA2's SASS comes with it), summarised by bench/sm80_bwd_ncu_source.py.
  local variants=${SM80_PROFILE_VARIANTS:-0} count
  count=$(( $(tr -cd , <<< "$variants" | wc -c) + 2 ))
  timeout ${SM80_NCU_S:-150} ncu --import-source no --section SpeedOfLight --section WarpStateStats \
    --section SourceCounters --section LaunchStats --section Occupancy --section InstructionStats \
    --section MemoryWorkloadAnalysis -k regex:"backward_kernel|flash_bwd_dq_dk_dv" -c $count \
    -o $TMP/bwd python3 bench/sm80_bwd_compare.py --lib $LIB --profile $variants \
    ${SM80_PROFILE_ARGS:-} > $TMP/ncu_run.log 2>&1
  echo "ncu rc $?"; tail -3 $TMP/ncu_run.log
  ncu --import $TMP/bwd.ncu-rep > $LOGS/ncu.log 2>&1
  grep -E "backward_kernel|flash_bwd|Duration|Registers Per|Stall|Warp Cycles Per Issued|Executed Ipc A|Issue Slots Busy|Shared Memory Configuration Size|Dynamic Shared|Achieved Occupancy|L1/TEX Hit|Compute \(SM\)|Memory Throughput" \
    $LOGS/ncu.log | cut -c1-150 | head -80
  ncu --import $TMP/bwd.ncu-rep --page source --csv --print-source sass > $TMP/source.csv 2>&1
  python3 bench/sm80_bwd_ncu_source.py $TMP/source.csv > $LOGS/ncu_source.txt 2>&1
  head -c 6000 $LOGS/ncu_source.txt
  gzip -c $TMP/source.csv > $OUT/ncu_source.csv.gz
}
step_ncucount() {
  # Executed warp instructions and cycles of the table and SM80_PROFILE_VARIANTS at D = 128,
  # N = 4096 (bf16, non-causal; FA2's backward last): the per-tile counts without the source
  # page (seconds instead of minutes).
  local variants=${SM80_PROFILE_VARIANTS:-0} count
  count=$(( $(tr -cd , <<< "$variants" | wc -c) + 2 ))
  timeout ${SM80_NCU_S:-60} ncu --metrics smsp__inst_executed.sum,sm__cycles_elapsed.max,gpu__time_duration.sum,launch__registers_per_thread,smsp__average_warp_latency_issue_stalled_wait.ratio \
    -k regex:"backward_kernel|flash_bwd_dq_dk_dv" -c $count \
    python3 bench/sm80_bwd_compare.py --lib $LIB --profile $variants ${SM80_PROFILE_ARGS:-} \
    > $LOGS/ncucount.log 2>&1
  echo "ncucount rc $?"
  grep -E "backward_kernel|flash_bwd|inst_executed|cycles_elapsed|time_duration|registers|stalled" \
    $LOGS/ncucount.log | sed -E 's/\(int, int, int\)x\(int, int, int\)//' | cut -c1-160
}
step_vsanitize() {
  for tool in memcheck racecheck; do
    timeout ${SM80_SANITIZER_S:-80} compute-sanitizer --tool $tool \
      python3 bench/sm80_bwd_compare.py --lib $LIB --small > $LOGS/v$tool.log 2>&1
    echo "$tool (candidates) rc $?:" \
      "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $LOGS/v$tool.log | tail -1)" \
      "$(grep -E 'check:' $LOGS/v$tool.log | paste -sd' ')"
  done
}
step_testsanitize() {
  # memcheck and racecheck of the library's GPU tests on a few small cases of the table's kernels
  # (SM80_TEST_SANITIZE_FILTER, a gtest filter), each tool under SM80_SANITIZER_S seconds.
  export LD_LIBRARY_PATH=$PWD/$DIR/testbin:$LD_LIBRARY_PATH
  for tool in memcheck racecheck; do
    timeout ${SM80_SANITIZER_S:-80} compute-sanitizer --tool $tool $DIR/testbin/fattn_cuda_tests \
      --gtest_filter="${SM80_TEST_SANITIZE_FILTER:?a gtest filter}" > $LOGS/test$tool.log 2>&1
    echo "$tool (tests) rc $?: $(grep -cE '^\[       OK' $LOGS/test$tool.log) ok," \
      "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $LOGS/test$tool.log | tail -1)"
  done
}
for step in $STEPS; do "step_$step"; done
