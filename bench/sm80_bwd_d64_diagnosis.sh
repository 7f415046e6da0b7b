#!/bin/bash
# One device call for the sm80 backward at D = 64 against FA2 (bench/results/
# sm80-bwd-h100-2026-11-22-s9b): ncu of our main kernel and FA2's on the same tensors (bf16,
# B·N = 16384, H·D = 2048, N = 16384 non-causal: sections and the SASS source page, then a few
# counters of the dQ reductions), and the per-phase timeline of ours at N = 4k / 16k, causal and
# not (bench/sm80_bwd_timeline.py, FA2's backward timed in the same turns).
# Expects (carried) the two timeline shims of
#   SM80_TIMELINE_ONLY_64=1 bench/sm80_bwd_timeline_build.sh build-h9bwd80b/tl 90a
# Usage: [D64_DIR=build-h9bwd80b/tl] [D64_STEPS="ncu timeline counters"]
#        [D64_VARIANT=641 (the shims' candidate instead of the table: recorded, profiled, and
#         timed in turns beside the table and FA2)] bench/sm80_bwd_d64_diagnosis.sh
# At most 8 files come back from a call: the timeline's summaries travel as one tar.
# Logs go into $OUT as each step ends (a call cut off at its limit keeps what finished).
set -o pipefail
source scripts/gpu-env.sh
export PYTHONUNBUFFERED=1
DIR=${D64_DIR:-build-h9bwd80b/tl}
STEPS=${D64_STEPS:-ncu timeline counters}
TIMELINE=$DIR/timeline/libsm80bwdtimeline.so PLAIN=$DIR/plain/libsm80bwdtimeline.so
PROFILE_POINT="64,16384,0"
VARIANT=${D64_VARIANT:-0}
KERNELS='regex:(^|::)backward_kernel|flash_bwd_dq_dk_dv'
TMP=$(mktemp -d)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv \
  | tee $OUT/gpu.txt
ls -d /usr/include/gtest /usr/lib/x86_64-linux-gnu/cmake/GTest >> $OUT/gpu.txt 2>&1

# FA2's backward, then the plain shim's, once each (ncu's target).
profile_run=(python3 bench/sm80_bwd_timeline.py --timeline $TIMELINE --plain $PLAIN --profile-only
             --points "$PROFILE_POINT" --variant $VARIANT)
step_ncu() {
  # FA2's main kernel first (profile_run launches it first), then ours.
  timeout ${D64_NCU_S:-90} ncu --import-source no --section SpeedOfLight \
    --section ComputeWorkloadAnalysis --section WarpStateStats --section SourceCounters \
    --section InstructionStats --section MemoryWorkloadAnalysis \
    --section MemoryWorkloadAnalysis_Tables --section LaunchStats --section Occupancy \
    -k "$KERNELS" -c 2 -o $TMP/d64 "${profile_run[@]}" > $TMP/ncu_run.log 2>&1
  echo "ncu rc $?"; tail -3 $TMP/ncu_run.log
  ncu --import $TMP/d64.ncu-rep > $OUT/ncu.log 2>&1
  grep -E "backward_kernel|flash_bwd|Duration|Registers Per|Stall|Warp Cycles Per Issued|Executed Ipc A|Issue Slots Busy|Compute \(SM\)|Memory Throughput|L2 Cache Throughput|Executed Instructions  " \
    $OUT/ncu.log | cut -c1-150 | head -60
  ncu --import $TMP/d64.ncu-rep --page source --csv --print-source sass > $TMP/source.csv 2>&1
  python3 bench/sm80_bwd_ncu_source.py $TMP/source.csv > $OUT/ncu_source.txt 2>&1
  gzip -c $TMP/source.csv > $OUT/ncu_source.csv.gz
}
step_timeline() {
  timeout ${D64_TIMELINE_S:-150} python3 bench/sm80_bwd_timeline.py --timeline $TIMELINE \
    --plain $PLAIN --out $TMP/timeline --reps 6 --variant $VARIANT \
    --points "64,4096,0;64,4096,1;64,16384,0;64,16384,1" > $OUT/timeline.log 2>&1
  echo "timeline rc $?"; grep -E "TFLOP/s" $OUT/timeline.log | sed -E 's/\{.*\}; //'
  tar -C $TMP -czf $OUT/timeline-summaries.tgz --exclude='*.npz' --exclude='trace-*' timeline
}
step_counters() {
  # The dQ reductions as the L2 and the SM count them (RED instructions, L2 sectors), and the
  # instructions and cycles of each kernel.
  timeout ${D64_COUNTERS_S:-45} ncu --metrics smsp__inst_executed.sum,sm__cycles_elapsed.max,gpu__time_duration.sum,lts__t_sectors_op_red.sum,lts__t_sectors_op_atom.sum,smsp__sass_inst_executed_op_global_red.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active \
    -k "$KERNELS" -c 2 "${profile_run[@]}" > $OUT/counters.log 2>&1
  echo "counters rc $?"
  grep -E "backward_kernel|flash_bwd|\.sum|\.max|\.pct" $OUT/counters.log \
    | sed -E 's/\(int, int, int\)x\(int, int, int\)//' | cut -c1-160
}
# Our kernels' SASS (this machine has no cuobjdump).
cuobjdump -sass $PLAIN 2>&1 | gzip > $OUT/plain_sass.txt.gz
for step in $STEPS; do step_$step; done
