#!/bin/bash
# s22 call 1: the sm80 backward's 192 tile with FA2's warp layouts (phase B as 2 key x 4 head-dim
# warps, 32 x 48 dQ warp tiles; variant b = the working tree) in turns beside main (5babd6a) and
# PyTorch's flash backward; variants a (phase B only), c (dQ only) and d (b + the packed windows
# on the lean kernel) on fewer points; ncu of b's kernel beside FA2's at D = 192; then the
# library's sm80 GPU tests and both sanitizers.
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
for v in a b c d; do xz -dc build-s22$v/carry/new.so.xz > /tmp/new_$v.so || exit 1; done
xz -dc build-s22b/carry/old.so.xz > /tmp/old.so || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
sm80_gpu_check_start "${SM80_CHECKS[@]}"
f="16,16,fp16"
turns() {  # variant points seconds
  timeout "$3" python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new_$1.so --runs 3 \
    --json "$OUT/turns_$1.json" --points "$2" 2>&1 | grep -v Warning | tee "$OUT/turns_$1.txt"
  echo "== $(date +%T) (at $SECONDS s) variant $1 done"
}
points=""
for D in 192 184 176 160 144 136 129 161 128; do points+="$D,2048,0,$f;"; done
points+="192,2048,1,$f;144,2048,1,$f;129,2048,1,$f;192,2048,0,16,16,bf16;192,8192,0,4,16,fp16;192,1024,1,32,16,fp16"
turns b "$points" 200
turns a "192,2048,0,$f;192,2048,1,$f;144,2048,0,$f" 60
turns c "192,2048,0,$f;192,2048,1,$f;144,2048,0,$f" 60
turns d "129,2048,0,$f;130,2048,0,$f;145,2048,0,$f;161,2048,0,$f;129,2048,1,$f" 80
# ncu: FA2's kernel (the reference gradients), then main's, then b's, on one point.
timeout 120 ncu --import-source no --section SpeedOfLight --section WarpStateStats \
  --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section SourceCounters \
  --section InstructionStats --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__sass_inst_executed_op_ldsm.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum \
  -k 'regex:(^|::)backward_kernel|flash_bwd_dq_dk_dv' -c 3 -o /tmp/ncu192 \
  python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new_b.so --runs 1 --reps 1 \
  --points "192,2048,0,$f" > /tmp/ncu_run.log 2>&1
echo "ncu rc $?"; tail -2 /tmp/ncu_run.log
ncu --import /tmp/ncu192.ncu-rep > $OUT/ncu.log 2>&1
grep -E "backward_kernel|flash_bwd|Duration|Registers Per|Warp Cycles Per Issued|Executed Ipc A|Issue Slots Busy|Compute \(SM\)|Memory Throughput|L1/TEX Cache Throughput|Executed Instructions  |wavefronts_mem_shared|op_ldsm|hmma_cycles|inst_executed.sum|Stall" \
  $OUT/ncu.log | sed -E 's/\(fattn::.*//; s/<Flash_bwd_kernel_traits.*//' | cut -c1-140 | head -90
ncu --import /tmp/ncu192.ncu-rep --page source --csv --print-source sass > /tmp/source.csv 2>&1
# warp-tiles: 256 heads x 32 x 32 items x 8 warps
python3 bench/sm80_bwd_ncu_phases.py opcodes /tmp/source.csv 2 2097152 0 > $OUT/ncu_by_opcode.txt 2>&1
head -45 $OUT/ncu_by_opcode.txt
gzip -c /tmp/source.csv > $OUT/ncu_source.csv.gz
sm80_gpu_check_wait
sm80_gpu_check_run 575 "${SM80_CHECKS[@]}"
# At most 8 files come back from a call: everything as one tar.
(cd "$OUT" && tar czf call1.tgz --remove-files $(ls | grep -v '^call1.tgz$'))
