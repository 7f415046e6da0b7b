#!/bin/bash
# One call on the GPU machine for the sm90 family: library tests (fp64 reference) and sanitizers,
# the bench script's own checks, the SDPA comparison, and ncu stall reasons at one sweep point.
# Expects (carried): build-sm90run/{fattn_cuda_tests,libfattn.so*} built with
# FATTN_CUDA_FAMILIES=sm90, build-sm90sa/<variant>/libsm90shim.so (bench/sm90_build.sh), .deps.
# Usage: [SM90_RACECHECK=1] [SM90_NCU=1] [SM90_NCU_POINT=D,N,causal] [SM90_BENCH_ARGS=...]
#        bench/sm90_device_run.sh FINAL_VARIANT [OTHER_VARIANT...]
# A variant named "old" is timed but not checked (the committed kernel, as a baseline).
# ncu profiles FINAL_VARIANT and "old" (one launch each) at SM90_NCU_POINT (default 64,512,1).
# Logs in $OUT, seven files at most (gtest, sanitizers, check, bench.log/json, ncu per variant):
# a call gives back only eight, and whatever a time-out leaves there still comes back.
# The sanitizers other than memcheck and ncu are opt-in (device time is scarce).
set -o pipefail
source scripts/gpu-env.sh
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/build-sm90run:$LD_LIBRARY_PATH
T=build-sm90run/fattn_cuda_tests S=bench/sm90_vs_cudnn.py L=build-sm90sa
final=$1
LOGS=$OUT
timeout 90 $T --gtest_filter='*cuda_sm90*:*Sm90*' > $LOGS/gtest.log 2>&1; echo "gtest rc $?"
grep -E "^\[  (PASSED|FAILED)|FAILED  \]|tests ran" $LOGS/gtest.log | head -12
tools=memcheck; [ "${SM90_RACECHECK:-0}" = 1 ] && tools="memcheck racecheck"
for tool in $tools; do
  timeout 60 compute-sanitizer --tool $tool $T \
    --gtest_filter='*cuda_sm90_small*:*one_key_tile_many_tiles*' > $LOGS/$tool.log 2>&1
  echo "$tool rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $LOGS/$tool.log | tail -1) $(grep -E '^\[  PASSED' $LOGS/$tool.log)"
done
# The bench script's checks for every variant but "old" (the committed kernel, checked before).
checked=""; for v in "$@"; do [ "$v" = old ] || checked="$checked --lib $v=$L/$v/libsm90shim.so"; done
timeout 60 python3 $S $checked --check > $LOGS/check.log 2>&1
echo "check rc $?: $(grep -E '^==|check:' $LOGS/check.log | paste -sd' ')"; grep FAIL $LOGS/check.log | head -5
libs=""; for v in "$@"; do libs="$libs --lib $v=$L/$v/libsm90shim.so"; done
timeout 130 python3 $S $libs --bench ${SM90_BENCH_ARGS:-} --json $OUT/bench.json > $LOGS/bench.log 2>&1
echo "bench rc $?"; grep -v "^D=" $LOGS/bench.log | grep -v "^|---"
if [ "${SM90_NCU:-0}" = 1 ]; then
  for v in $final $(echo "$@" | tr ' ' '\n' | grep -x old); do
    # The stall breakdown per issued instruction; if this ncu lacks a metric, the sections alone.
    ncu_run() {
      timeout 40 ncu --section WarpStateStats --section ComputeWorkloadAnalysis \
        --section SchedulerStats "$@" -k regex:forward_kernel -s 1 -c 1 python3 $S \
        --lib $L/$v/libsm90shim.so --profile ${SM90_NCU_POINT:-64,512,1} > $LOGS/ncu_$v.log 2>&1
    }
    ncu_run --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' || ncu_run
    echo "== ncu $v rc $?"
    grep -E "stalled|Issue Slot|Pipe|Warp Cycles|Active Warps|Eligible|No Eligible|One or More|Duration" \
      $LOGS/ncu_$v.log | awk '$NF+0 > 0.02 || !/stalled/' | head -40
  done
fi
