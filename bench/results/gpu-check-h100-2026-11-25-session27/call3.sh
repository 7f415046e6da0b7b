#!/bin/bash
# Twenty-seventh session, call 3: evidence for the sm80 backward's small-N causal points against
# FA2 (the #5 sweep: bwd 0.93 / 0.95 at D = 64 / 128 N = 512 causal). ncu of our backward kernel
# (this tree's 64 / 128 buckets, the shim's old = new) and FA2's flash_bwd_dq_dk_dv at the sweep
# shape (bf16, B·N = 16k, H·D = 2048), full sections and the source page; then stall samples by
# opcode, ours (kernel 0) against FA2 (kernel 2).
source scripts/gpu-env.sh 2>/dev/null
C=build-s27c3
xz -dc $C/new.so.xz > /tmp/new.so
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
python3 bench/sm80_bwd_turns.py --old /tmp/new.so --new /tmp/new.so --runs 2 \
  --points '64,512,1,32,32,bf16;128,512,1,32,16,bf16;64,1024,1,16,32,bf16;64,512,0,32,32,bf16' > $OUT/turns.txt 2>&1
grep "^D=" $OUT/turns.txt
M=smsp__sass_inst_executed_op_ldsm.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,lts__t_sectors_op_red.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__cycles_active.avg
for p in "d64c:64,512,1,32,32,bf16" "d128c:128,512,1,32,16,bf16"; do
  r=${p%%:*}
  timeout 200 ncu --import-source no --section SpeedOfLight --section WarpStateStats --section SourceCounters \
    --section InstructionStats --section LaunchStats --section Occupancy --section SchedulerStats --metrics $M \
    -k 'regex:(^|::)backward_kernel|flash_bwd_dq_dk_dv' -c 3 -o /tmp/$r \
    python3 bench/sm80_bwd_turns.py --old /tmp/new.so --new /tmp/new.so --runs 1 --reps 1 \
    --points "${p#*:}" > $OUT/${r}_run.log 2>&1
  echo "== $(date +%T) (at $SECONDS s) ncu $r rc $?"
  ncu --import /tmp/$r.ncu-rep > $OUT/$r.log 2>&1
  ncu --import /tmp/$r.ncu-rep --page source --csv --print-source sass > /tmp/${r}_source.csv 2>&1
  grep -E "backward_kernel|flash_bwd|Duration|Warp Cycles Per Issued|Issue Slots Busy|Registers Per|Achieved Occ|hmma_cycles|inst_executed.sum|Grid Size|Block Limit|Waves Per SM" \
    $OUT/$r.log | sed -E 's/\(fattn::.*//; s/<Flash_.*//' | cut -c1-120 | head -60
  python3 bench/sm80_bwd_ncu_phases.py opcodes /tmp/${r}_source.csv 0 1 2 > $OUT/${r}_by_opcode.txt 2>&1
  head -30 $OUT/${r}_by_opcode.txt
done
(cd /tmp && tar czf $OUT/ncu.tgz d64c.ncu-rep d128c.ncu-rep d64c_source.csv d128c_source.csv)
(cd $OUT && tar czf logs.tgz *_run.log && rm -f *_run.log)
