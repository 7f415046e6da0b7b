#!/bin/bash
# One call on the GPU machine for the sm90 family: library tests (fp64 reference) and sanitizers,
# the bench script's own checks, the SDPA comparison, and ncu stall reasons at one sweep point.
# Expects (carried): $SM90_RUN_DIR/{fattn_cuda_tests,libfattn.so*} built with
# FATTN_CUDA_FAMILIES=sm90, $SM90_SHIM_DIR/<variant>/libsm90shim.so (bench/sm90_build.sh), .deps.
# Usage: [SM90_RUN_DIR=build-sm90run] [SM90_SHIM_DIR=build-sm90sa] [SM90_RACECHECK=1]
#        [SM90_NCU=1] [SM90_NCU_POINT=D,N,causal] [SM90_NCU_VARIANTS="a b"] [SM90_BENCH_ARGS=...]
#        [SM90_BENCH_TWICE=1] [SM90_NCU_SOURCE=1] [SM90_NCU_PEER=1] [SM90_NCU_PEER_POINT=D,N,causal]
#        [SM90_SANITIZE_FILTER=gtest filter for memcheck/racecheck (default: the small cases)]
#        bench/sm90_device_run.sh FINAL_VARIANT [OTHER_VARIANT...]
# A variant named "old" is timed but not checked (the committed kernel, as a baseline).
# SM90_NCU_PEER=1 profiles cuDNN's SDPA kernel and FINAL_VARIANT at SM90_NCU_PEER_POINT (default
# 128,4096,0) with the launch, occupancy, throughput and memory sections side by side; with
# SM90_NCU_SOURCE=1 also their stall samples per SASS instruction (ncu_peer_source_*.csv, read
# by bench/sm90_ncu_source_summary.py).
# SM90_BENCH_TWICE=1 times the sweep a second time with the variants in reverse order (the
# contestant timed first at a point runs faster: docs/perf-notes.md, v5), so that a ratio can be
# read from the two runs' geometric mean.
# ncu profiles FINAL_VARIANT and "old" (one launch each; SM90_NCU_VARIANTS names others) at
# SM90_NCU_POINT (default 64,512,1). Racecheck and ncu run after the bench.
# Logs: the bench tables in $OUT, everything else in $OUT/logs.tgz, refreshed after every step
# (a call gives back only eight files, and whatever a time-out leaves there still comes back).
# The sanitizers other than memcheck and ncu are opt-in (device time is scarce).
set -o pipefail
source scripts/gpu-env.sh
R=${SM90_RUN_DIR:-build-sm90run} L=${SM90_SHIM_DIR:-build-sm90sa} S=bench/sm90_vs_cudnn.py
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/$R:$LD_LIBRARY_PATH
T=$R/fattn_cuda_tests
final=$1
LOGS=$(mktemp -d)
save() { tar czf $OUT/logs.tgz -C $LOGS .; }
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 90 $T --gtest_filter='*cuda_sm90*:*Sm90*' > $LOGS/gtest.log 2>&1; echo "gtest rc $?"
grep -E "^\[  (PASSED|FAILED)|FAILED  \]|tests ran" $LOGS/gtest.log | head -12; save
sanitize() {  # <tool>
  timeout 80 compute-sanitizer --tool $1 $T \
    --gtest_filter="${SM90_SANITIZE_FILTER:-*cuda_sm90_small*:*one_key_tile_many_tiles*:*idle_consumer*:*masked_tiles_between*:*tail_columns*}" \
    > $LOGS/$1.log 2>&1
  echo "$1 rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $LOGS/$1.log | tail -1) $(grep -E '^\[  PASSED' $LOGS/$1.log)"
  save
}
sanitize memcheck
# LDL/STL (local memory: spills or indexed register arrays) in the forward kernels of each shim.
for v in "$@"; do
  sass=$(cuobjdump -sass $L/$v/libsm90shim.so)
  echo "$v: LDL/STL $(grep -cE '\b(LDL|STL)\b' <<< "$sass"), STSM $(grep -cE '\bSTSM' <<< "$sass"), UTMASTG $(grep -cE '\bUTMASTG' <<< "$sass"), UTMALDG $(grep -cE '\bUTMALDG' <<< "$sass")"
done
# The bench script's checks for every variant but "old" (the committed kernel, checked before).
checked=""; for v in "$@"; do [ "$v" = old ] || checked="$checked --lib $v=$L/$v/libsm90shim.so"; done
timeout 60 python3 $S $checked --check > $LOGS/check.log 2>&1
echo "check rc $?: $(grep -E '^==|check:' $LOGS/check.log | paste -sd' ')"; grep FAIL $LOGS/check.log | head -5
save
bench_run() {  # <log name> <variant>...
  local name=$1 libs=""
  shift
  for v in "$@"; do libs="$libs --lib $v=$L/$v/libsm90shim.so"; done
  timeout 150 python3 $S $libs --bench ${SM90_BENCH_ARGS:-} --json $OUT/$name.json > $OUT/$name.log 2>&1
  echo "$name rc $?"; grep -v "^D=" $OUT/$name.log | grep -v "^|---"
}
bench_run bench "$@"
[ "${SM90_BENCH_TWICE:-0}" = 1 ] && bench_run bench_reversed $(printf '%s\n' "$@" | tac)
# The opt-in extras last, so that a call that runs out of time loses only those.
[ "${SM90_RACECHECK:-0}" = 1 ] && sanitize racecheck
if [ "${SM90_NCU:-0}" = 1 ]; then
  for v in ${SM90_NCU_VARIANTS:-$final $(echo "$@" | tr ' ' '\n' | grep -x old)}; do
    # The stall breakdown per issued instruction; if this ncu lacks a metric, the sections alone.
    # SM90_NCU_SOURCE=1 also samples stalls per SASS instruction (SourceCounters) into a report
    # and exports its source page as CSV (ncu_source_<variant>.csv).
    ncu_run() {
      if [ "${SM90_NCU_SOURCE:-0}" = 1 ]; then
        timeout 60 ncu --section WarpStateStats --section ComputeWorkloadAnalysis \
          --section SchedulerStats --section SourceCounters "$@" -k regex:forward_kernel -s 1 -c 1 \
          -f -o $LOGS/ncu_$v python3 $S --lib $L/$v/libsm90shim.so \
          --profile ${SM90_NCU_POINT:-64,512,1} > $LOGS/ncu_run_$v.log 2>&1 &&
          ncu -i $LOGS/ncu_$v.ncu-rep --page details > $LOGS/ncu_$v.log 2>&1
      else
        timeout 40 ncu --section WarpStateStats --section ComputeWorkloadAnalysis \
          --section SchedulerStats "$@" -k regex:forward_kernel -s 1 -c 1 python3 $S \
          --lib $L/$v/libsm90shim.so --profile ${SM90_NCU_POINT:-64,512,1} > $LOGS/ncu_$v.log 2>&1
      fi
    }
    ncu_run --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' || ncu_run
    echo "== ncu $v rc $?"
    if [ "${SM90_NCU_SOURCE:-0}" = 1 ]; then
      ncu -i $LOGS/ncu_$v.ncu-rep --page source --csv --print-source sass > $OUT/ncu_source_$v.csv \
        2> $LOGS/ncu_source_$v.err || ncu -i $LOGS/ncu_$v.ncu-rep --page source --csv \
        > $OUT/ncu_source_$v.csv 2>> $LOGS/ncu_source_$v.err
      echo "source page rc $?: $(wc -l < $OUT/ncu_source_$v.csv) lines"
    fi
    grep -E "stalled|Issue Slot|Pipe|Warp Cycles|Active Warps|Eligible|No Eligible|One or More|Duration" \
      $LOGS/ncu_$v.log | awk '$NF+0 > 0.02 || !/stalled/' | head -40
    save
  done
fi
if [ "${SM90_NCU_PEER:-0}" = 1 ]; then
  point=${SM90_NCU_PEER_POINT:-128,4096,0}
  sections="--section LaunchStats --section Occupancy --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section ComputeWorkloadAnalysis --section InstructionStats --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio"
  # SM90_NCU_SOURCE=1: also the stall samples per SASS instruction of both kernels, exported as
  # ncu_peer_source_<cudnn|variant>.csv (cuDNN's kernel has no source lines, only SASS).
  [ "${SM90_NCU_SOURCE:-0}" = 1 ] && sections="$sections --section SourceCounters"
  peer_source() {  # <name>: export the source page of $LOGS/ncu_peer_<name>.ncu-rep
    [ "${SM90_NCU_SOURCE:-0}" = 1 ] || return 0
    ncu -i $LOGS/ncu_peer_$1.ncu-rep --page details > $LOGS/ncu_peer_$1.log 2>&1
    ncu -i $LOGS/ncu_peer_$1.ncu-rep --page source --csv --print-source sass \
      > $OUT/ncu_peer_source_$1.csv 2> $LOGS/ncu_peer_source_$1.err
    echo "source page $1 rc $?: $(wc -l < $OUT/ncu_peer_source_$1.csv) lines"
  }
  report() {  # <name>: write a report file when sampling per instruction, else the log
    if [ "${SM90_NCU_SOURCE:-0}" = 1 ]; then echo "-f -o $LOGS/ncu_peer_$1"; fi
  }
  timeout 90 ncu $sections $(report cudnn) --nvtx --nvtx-include "cudnn_sdpa/" -s 1 -c 1 python3 $S \
    --lib $L/$final/libsm90shim.so --profile $point --profile-cudnn > $LOGS/ncu_peer_cudnn_run.log 2>&1
  echo "== ncu cudnn rc $?"
  if [ "${SM90_NCU_SOURCE:-0}" = 1 ]; then peer_source cudnn; else mv $LOGS/ncu_peer_cudnn_run.log $LOGS/ncu_peer_cudnn.log; fi
  timeout 90 ncu $sections $(report $final) -k regex:forward_kernel -s 1 -c 1 python3 $S \
    --lib $L/$final/libsm90shim.so --profile $point > $LOGS/ncu_peer_${final}_run.log 2>&1
  echo "== ncu $final rc $?"
  if [ "${SM90_NCU_SOURCE:-0}" = 1 ]; then peer_source $final; else mv $LOGS/ncu_peer_${final}_run.log $LOGS/ncu_peer_$final.log; fi
  for f in $LOGS/ncu_peer_cudnn.log $LOGS/ncu_peer_$final.log; do
    echo "-- $(basename $f)"
    grep -E "^  [a-zA-Z_].*\(|Grid Size|Block Size|Cluster Size|Registers Per|Shared Memory Config|Dynamic Shared|Duration|Elapsed Cycles|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|DRAM Throughput|Achieved Occupancy|Eligible Warps|Warp Cycles Per Issued|Executed Instructions  |Issue Slots Busy" $f | head -30
    grep -E "stalled" $f | awk '$NF+0 > 0.05' | head -14
  done
  save
fi
