#!/bin/bash
# One call on the GPU machine for the sm90 family: library tests (fp64 reference) and sanitizers,
# the bench script's own checks, the SDPA comparison, and ncu stall reasons at one sweep point.
# Expects (carried): build-sm90run/{fattn_cuda_tests,libfattn.so*} built with
# FATTN_CUDA_FAMILIES=sm90, build-sm90sa/<variant>/libsm90shim.so (bench/sm90_shim.cu), .deps.
# Usage: [SM90_RACECHECK=1] [SM90_NCU=1] bench/sm90_device_run.sh FINAL_VARIANT [OTHER_VARIANT...]
# Logs in $OUT. The sanitizers other than memcheck and ncu are opt-in (device time is scarce).
set -o pipefail
source scripts/gpu-env.sh
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/build-sm90run:$LD_LIBRARY_PATH
T=build-sm90run/fattn_cuda_tests S=bench/sm90_vs_cudnn.py L=build-sm90sa
final=$1
timeout 200 $T --gtest_filter='*cuda_sm90*:*Sm90*' > $OUT/gtest.log 2>&1; echo "gtest rc $?"
grep -E "^\[  (PASSED|FAILED)|FAILED  \]|tests ran" $OUT/gtest.log | head -12
tools=memcheck; [ "${SM90_RACECHECK:-0}" = 1 ] && tools="memcheck racecheck"
for tool in $tools; do
  timeout 150 compute-sanitizer --tool $tool $T --gtest_filter='*cuda_sm90_small*' > $OUT/$tool.log 2>&1
  echo "$tool rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/$tool.log | tail -1) $(grep -E '^\[  PASSED' $OUT/$tool.log)"
done
timeout 60 python3 $S --lib $final=$L/$final/libsm90shim.so --check > $OUT/check.log 2>&1
echo "check rc $?: $(grep -E 'check:' $OUT/check.log)"; grep FAIL $OUT/check.log | head -5
libs=""; for v in "$@"; do libs="$libs --lib $v=$L/$v/libsm90shim.so"; done
timeout 200 python3 $S $libs --bench --json $OUT/bench.json > $OUT/bench.log 2>&1
echo "bench rc $?"; grep -v "^D=" $OUT/bench.log | grep -v "^|---"
[ "${SM90_NCU:-0}" = 1 ] || exit 0
timeout 120 ncu --section WarpStateStats --section ComputeWorkloadAnalysis --section SchedulerStats \
  -k regex:forward_kernel -s 1 -c 1 python3 $S --lib $L/$final/libsm90shim.so --profile 64,512,1 \
  > $OUT/ncu.log 2>&1
echo "ncu rc $?"; grep -E "Stall|Issue Slot|Pipe|Warp Cycles|Active Warps|Eligible|No Eligible|One or More" $OUT/ncu.log | head -30
