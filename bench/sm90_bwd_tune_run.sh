#!/bin/bash
# One device call for tuning the Hopper backward: the tile-shape variants of
# bench/sm90_bwd_variants.cu checked against an fp32 reference, racecheck/memcheck on small
# cases, ncu on the committed shapes and the main candidate, then backward TFLOP/s of every
# variant beside SDPA cuDNN and flash. No library build: the shim is built at the desk
# (bench/sm90_bwd_variants_build.sh build-bwd90/variants) and carried; rebuilt here if absent.
# Usage (carry ["build-bwd90/variants/libsm90bwdvariants.so"]):
#   [SM90_TUNE_STEPS="check bench ncu racecheck memcheck"] [SM90_TUNE_NCU="64,4096,0:0,2 128,4096,0:4"]
#   bench/sm90_bwd_tune_run.sh
# Logs land in $OUT as each step ends (a call cut off at its limit returns what finished).
set -o pipefail
[ -f scripts/gpu-env.sh ] && source scripts/gpu-env.sh
export PYTHONUNBUFFERED=1
OUT=${OUT:-$PWD/sm90-bwd-tune-out}
mkdir -p "$OUT"
LIB=build-bwd90/variants/libsm90bwdvariants.so
S=bench/sm90_bwd_variants.py
STEPS=${SM90_TUNE_STEPS:-check bench ncu racecheck memcheck}
NCU_RUNS=${SM90_TUNE_NCU:-64,4096,0:2,3 128,4096,0:4,5}
NCU_KERNEL='regex:(^|::)backward_kernel'
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
ls -d /usr/include/gtest /usr/lib/x86_64-linux-gnu/cmake/GTest 2>&1 | tr '\n' ' '; echo
if [ ! -f $LIB ]; then
  bench/sm90_bwd_variants_build.sh build-bwd90/variants 16 > $OUT/shim-build.log 2>&1 || exit 1
fi
step_check() {
  timeout 90 python3 $S --lib $LIB --check > $OUT/check.log 2>&1
  echo "check rc $?"; grep -E "check:|FAIL|Error" $OUT/check.log | head -20
}
step_bench() {
  timeout 150 python3 $S --lib $LIB --bench --json $OUT/bench.json > $OUT/bench.log 2>&1
  echo "bench rc $?"; grep -v '^|---' $OUT/bench.log
}
step_ncu() {
  # Stall reasons, pipe utilizations and L2 reduction traffic; one kernel per listed variant.
  local metrics=lts__t_sectors_op_red.sum,lts__t_sectors_op_red.sum.per_second
  for run in $NCU_RUNS; do
    local shape=${run%%:*} variants=${run#*:}
    local sections="--section SpeedOfLight --section ComputeWorkloadAnalysis --section
      MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --metrics $metrics"
    # --print-details all adds the sections' tables (pipe utilizations, stall breakdown).
    timeout 100 ncu $sections --print-details all -k "$NCU_KERNEL" \
      python3 $S --lib $LIB --profile $shape --variants $variants >> $OUT/ncu.log 2>&1
    local rc=$?
    if [ $rc -ne 0 ]; then
      timeout 80 ncu $sections -k "$NCU_KERNEL" \
        python3 $S --lib $LIB --profile $shape --variants $variants >> $OUT/ncu.log 2>&1
      rc=$?
    fi
    echo "ncu $run rc $rc"
  done
  grep -E "profile:|Duration|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|Issue Slots Busy|Stall|lts__t_sectors_op_red|Executed Ipc A|Warp Cycles Per Issued|Tensor|XU|FMA  " $OUT/ncu.log | cut -c1-130 | head -90
}
step_racecheck() {
  timeout 120 compute-sanitizer --tool racecheck python3 $S --lib $LIB --small \
    > $OUT/racecheck.log 2>&1
  echo "racecheck rc $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $OUT/racecheck.log | tail -1)" \
    "$(grep -c 'backward_kernel' $OUT/racecheck.log) lines naming backward_kernel"
  grep -E "check:" $OUT/racecheck.log; grep -m5 -E "hazard" $OUT/racecheck.log
}
step_memcheck() {
  timeout 90 compute-sanitizer --tool memcheck python3 $S --lib $LIB --small \
    > $OUT/memcheck.log 2>&1
  echo "memcheck rc $?: $(grep -E 'ERROR SUMMARY' $OUT/memcheck.log | tail -1)"
  grep -E "check:" $OUT/memcheck.log; grep -m5 -E "Invalid|out of bounds" $OUT/memcheck.log
}
for step in $STEPS; do "step_$step"; done
