#!/bin/bash
# One device call for the sm80 backward at one head dim against FA2 (bench/sm80_bwd_d64_diagnosis.sh
# generalised; tenth session at D = 256: bench/results/sm80-bwd-h100-2026-11-23-s10): ncu of
# our main kernel and FA2's on the same tensors at each profile point (bf16, B·N = 16384,
# H·D = 2048: sections and the SASS source page, the by-opcode comparison of
# bench/sm80_bwd_ncu_phases.py, a few counters of the dQ reductions), the deterministic /
# default ratio (bench/sm80_bwd_det_ratio.py) and the per-phase timeline of ours
# (bench/sm80_bwd_timeline.py, FA2's backward timed in the same turns).
# Expects (carried) the two timeline shims of bench/sm80_bwd_timeline_build.sh <dir> 90a.
# Usage: DIAG_DIR=<dir> [DIAG_PROFILE="256,4096,0;256,4096,1"] [DIAG_STEPS="ncu counters det
#        timeline"] [DIAG_VARIANT=0 (a shim candidate instead of the table: profiled, and timed
#        in turns beside the table and FA2)] [DIAG_TIMELINE_POINTS=...] [DIAG_DET_POINTS=...]
#        [DIAG_ROWPASS_POINTS="128,512,1;..."] [DIAG_<STEP>_S=seconds]
#        bench/sm80_bwd_fa2_diagnosis.sh
# Step "rowpass" (eleventh session, h11-bwd80): the pre- and postprocess kernels, ours and FA2's
# (dot_do_o, which also zeroes its dQ accumulator, and convert_dq), under ncu at small N: their
# durations and DRAM bytes, for the achieved bytes/s against the copy rate.
# Logs go into $OUT as each step ends (a call cut off at its limit keeps what finished); the
# timeline's summaries and det_ratio.json travel as one tar (at most 8 files come back from a
# call), ncu_source.txt's summary at the top of ncu_by_opcode.txt.
set -o pipefail
source scripts/gpu-env.sh
export PYTHONUNBUFFERED=1
DIR=${DIAG_DIR:?DIAG_DIR: the folder of bench/sm80_bwd_timeline_build.sh}
STEPS=${DIAG_STEPS:-ncu counters det timeline}
PROFILE_POINTS=${DIAG_PROFILE:-256,4096,0;256,4096,1}
TIMELINE_POINTS=${DIAG_TIMELINE_POINTS:-256,4096,0;256,4096,1;256,16384,0}
DET_POINTS=${DIAG_DET_POINTS:-128,4096,1;128,16384,1;256,4096,1;256,16384,1}
VARIANT=${DIAG_VARIANT:-0}
TIMELINE=$DIR/timeline/libsm80bwdtimeline.so PLAIN=$DIR/plain/libsm80bwdtimeline.so
KERNELS='regex:(^|::)backward_kernel|flash_bwd_dq_dk_dv'
# Two kernels per profile point: FA2's, then ours.
PROFILED=$(( 2 * $(echo "$PROFILE_POINTS" | tr ';' '\n' | wc -l) ))
TMP=$(mktemp -d)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv \
  | tee $OUT/gpu.txt
ls -d /usr/include/gtest /usr/lib/x86_64-linux-gnu/cmake/GTest >> $OUT/gpu.txt 2>&1

profile_run=(python3 bench/sm80_bwd_timeline.py --timeline $TIMELINE --plain $PLAIN --profile-only
             --points "$PROFILE_POINTS" --variant $VARIANT)
step_ncu() {
  timeout ${DIAG_NCU_S:-120} ncu --import-source no --section SpeedOfLight \
    --section ComputeWorkloadAnalysis --section WarpStateStats --section SourceCounters \
    --section InstructionStats --section MemoryWorkloadAnalysis \
    --section MemoryWorkloadAnalysis_Tables --section LaunchStats --section Occupancy \
    -k "$KERNELS" -c $PROFILED -o $TMP/diag "${profile_run[@]}" > $TMP/ncu_run.log 2>&1
  echo "ncu rc $?"; tail -3 $TMP/ncu_run.log
  ncu --import $TMP/diag.ncu-rep > $OUT/ncu.log 2>&1
  grep -E "backward_kernel|flash_bwd|Duration|Registers Per|Stall|Warp Cycles Per Issued|Executed Ipc A|Issue Slots Busy|Compute \(SM\)|Memory Throughput|L2 Cache Throughput|Executed Instructions  " \
    $OUT/ncu.log | cut -c1-150 | head -80
  ncu --import $TMP/diag.ncu-rep --page source --csv --print-source sass > $TMP/source.csv 2>&1
  python3 bench/sm80_bwd_ncu_source.py $TMP/source.csv > $OUT/ncu_by_opcode.txt 2>&1
  # Ours against FA2's by opcode at each point (kernels 2p = FA2's, 2p + 1 = ours), per warp and
  # query tile: CTAs x 8 warps x the query tiles each walks (computed from the point's shape).
  local p=0
  for point in $(echo "$PROFILE_POINTS" | tr ';' ' '); do
    local tiles
    tiles=$(python3 -c "
D, N, c = (int(x) for x in '$point'.split(','))
bn = 128 if D <= 128 else 64; bm = 128 if D <= 64 else 64
heads = (16384 // N) * (2048 // D); n_blocks = -(-N // bn); m_blocks = -(-N // bm)
# causal, bottom-right aligned, seqlen_q == seqlen_k: key tile n meets the query tiles from
# the one holding its first key on
items = sum(m_blocks - (n * bn) // bm for n in range(n_blocks)) if c else n_blocks * m_blocks
print(heads * items * 8)")
    echo "== point $point (warp-tiles $tiles)" >> $OUT/ncu_by_opcode.txt
    python3 bench/sm80_bwd_ncu_phases.py opcodes $TMP/source.csv $((2 * p + 1)) $tiles $((2 * p)) \
      >> $OUT/ncu_by_opcode.txt 2>&1
    p=$((p + 1))
  done
  sed -n "/== point/,\$p" $OUT/ncu_by_opcode.txt | head -70
  gzip -c $TMP/source.csv > $OUT/ncu_source.csv.gz
}
step_rowpass() {
  timeout ${DIAG_ROWPASS_S:-60} ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed \
    -k 'regex:backward_preprocess|backward_postprocess|dot_do_o|convert_dq|backward_kernel|flash_bwd_dq_dk_dv' \
    python3 bench/sm80_bwd_timeline.py --timeline $TIMELINE --plain $PLAIN --profile-only \
    --points "${DIAG_ROWPASS_POINTS:-128,512,1;256,512,1;128,1024,0}" > $OUT/rowpass.log 2>&1
  echo "rowpass rc $?"
  grep -E "^  [a-z_ ]*void|^  [a-z]|gpu__time|dram__bytes|lts__t_bytes" $OUT/rowpass.log \
    | sed -E 's/\(fattn::BackwardParams.*//; s/<Flash_bwd_kernel_traits.*//' | cut -c1-120
}
step_counters() {
  # The dQ reductions as the L2 and the SM count them (RED instructions, L2 sectors), shared-memory
  # and LSU traffic, and the instructions and cycles of each kernel.
  timeout ${DIAG_COUNTERS_S:-60} ncu --metrics smsp__inst_executed.sum,sm__cycles_elapsed.max,gpu__time_duration.sum,lts__t_sectors_op_red.sum,lts__t_sectors_op_atom.sum,smsp__sass_inst_executed_op_global_red.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,l1tex__throughput.avg.pct_of_peak_sustained_active,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,smsp__sass_inst_executed_op_ldsm.sum \
    -k "$KERNELS" -c $PROFILED "${profile_run[@]}" > $OUT/counters.log 2>&1
  echo "counters rc $?"
  grep -E "backward_kernel|flash_bwd|\.sum|\.max|\.pct" $OUT/counters.log \
    | sed -E 's/\(int, int, int\)x\(int, int, int\)//' | cut -c1-160
}
step_det() {
  mkdir -p $TMP/timeline
  timeout ${DIAG_DET_S:-100} python3 bench/sm80_bwd_det_ratio.py --plain $PLAIN \
    --points "$DET_POINTS" --json $TMP/timeline/det_ratio.json > $OUT/det_ratio.log 2>&1
  echo "det rc $?"; cat $OUT/det_ratio.log | cut -c1-400
}
step_timeline() {
  timeout ${DIAG_TIMELINE_S:-120} python3 bench/sm80_bwd_timeline.py --timeline $TIMELINE \
    --plain $PLAIN --out $TMP/timeline --reps 6 --variant $VARIANT \
    --points "$TIMELINE_POINTS" > $OUT/timeline.log 2>&1
  echo "timeline rc $?"; grep -E "TFLOP/s" $OUT/timeline.log | sed -E 's/\{.*\}; //'
  tar -C $TMP -czf $OUT/timeline-summaries.tgz --exclude='*.npz' --exclude='trace-*' timeline
}
for step in $STEPS; do step_$step; done
