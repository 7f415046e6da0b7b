#!/bin/bash
# Twenty-third session, call 2: the GPU tests of the tree to land (main + bwd192-next-a, the
# 192 backward's statistics one query tile ahead, + fwd-wide128), and ncu evidence for the next
# desk work: the sm80 backward at D = 256 beside FA2's (bf16, the sweep's N = 4k shape), and the
# sm80 forward at D = 80 / 200 beside their next multiples of 64 and FA2.
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
FILTER='*Bucket192*:*ShiftedWindows*:*WideWindows*'
sm80_gpu_check_start --families sm80 --dtypes "fp16;bf16" --no-bench --filter "$FILTER"
PATH=/usr/local/cuda/bin:$PATH bash bench/sm80_old_new_build.sh /tmp/b256 . "256" 8 bwd > $OUT/b256-build.log 2>&1
echo "== $(date +%T) (at $SECONDS s) bwd shim rc $? $(tail -1 $OUT/b256-build.log)"
PATH=/usr/local/cuda/bin:$PATH bash bench/sm80_old_new_build.sh /tmp/f . "128 256" 8 fwd > $OUT/f-build.log 2>&1
echo "== $(date +%T) (at $SECONDS s) fwd shim rc $? $(tail -1 $OUT/f-build.log)"
xz -dc /tmp/b256/carry/new.so.xz > /tmp/b256.so; xz -dc /tmp/f/carry/new.so.xz > /tmp/f.so
M=smsp__sass_inst_executed_op_ldsm.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,lts__t_sectors_op_red.sum,dram__bytes_read.sum,dram__bytes_write.sum
timeout 150 ncu --import-source no --section SpeedOfLight --section WarpStateStats --section SourceCounters \
  --section InstructionStats --section LaunchStats --section Occupancy --metrics $M \
  -k 'regex:(^|::)backward_kernel|flash_bwd_dq_dk_dv' -c 3 -o /tmp/ncu256 \
  python3 bench/sm80_bwd_turns.py --old /tmp/b256.so --new /tmp/b256.so --runs 1 --reps 1 \
  --points "256,4096,0,4,8,bf16" > $OUT/ncu256_run.log 2>&1
echo "== $(date +%T) (at $SECONDS s) ncu bwd rc $?"
timeout 200 ncu --import-source no --section SpeedOfLight --section WarpStateStats --section SourceCounters \
  --section InstructionStats --section LaunchStats --section Occupancy --metrics $M \
  -k 'regex:(^|::)forward_kernel|flash_fwd_kernel' -o /tmp/ncufwd \
  python3 bench/sm80_fwd_turns.py --old /tmp/f.so --new /tmp/f.so --runs 1 --reps 1 --profile old,flash \
  --points "80,2048,0,16,16,fp16;128,2048,0,16,16,fp16;200,2048,0,16,16,fp16;256,2048,0,16,16,fp16" > $OUT/ncufwd_run.log 2>&1
echo "== $(date +%T) (at $SECONDS s) ncu fwd rc $?"
for r in ncu256 ncufwd; do
  ncu --import /tmp/$r.ncu-rep > $OUT/$r.log 2>&1
  ncu --import /tmp/$r.ncu-rep --page source --csv --print-source sass > /tmp/${r}_source.csv 2>&1
  grep -E "backward_kernel|flash_bwd|forward_kernel|flash_fwd|Duration|Warp Cycles Per Issued|Issue Slots Busy|Registers Per|Achieved Occ|hmma_cycles|inst_executed.sum" \
    $OUT/$r.log | sed -E 's/\(fattn::.*//; s/<Flash_.*//' | cut -c1-120 | head -60
done
python3 bench/sm80_bwd_ncu_phases.py opcodes /tmp/ncu256_source.csv 0 1 2 > $OUT/ncu256_by_opcode.txt 2>&1
head -40 $OUT/ncu256_by_opcode.txt
(cd /tmp && tar czf $OUT/ncu.tgz ncu256.ncu-rep ncufwd.ncu-rep ncu256_source.csv ncufwd_source.csv)
sm80_gpu_check_wait
sm80_gpu_check_run 590 --families sm80 --dtypes "fp16;bf16" --no-bench --filter "$FILTER"
(cd "$OUT" && tar czf gc.tgz --remove-files gc gc-build.txt b256-build.log f-build.log ncu256_run.log ncufwd_run.log)
