#!/bin/bash
# s22 call 8 (the session's last): ncu of the 192 backward as taken (v42, the Large table) beside
# FA2's at D = 192, N = 2048 (what is left of the gap); the sm80 forward's wide shifted windows
# (fwd-wide-windows, if its shims are carried: build-s22fwin) in turns beside main before them
# and FA2; two config-only backward candidates at 192 (s1, s2); then the library's sm80 GPU tests and both sanitizers on the working tree.
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
sm80_gpu_check_start "${SM80_CHECKS[@]}"
f="16,16,fp16"
xz -dc build-s22final/carry/new.so.xz > /tmp/v42.so && xz -dc build-s22final/carry/old.so.xz > /tmp/v40.so || exit 1
timeout 120 ncu --import-source no --section SpeedOfLight --section WarpStateStats \
  --section SourceCounters --section InstructionStats \
  --metrics smsp__sass_inst_executed_op_ldsm.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,lts__t_sectors_op_red.sum \
  -k 'regex:(^|::)backward_kernel|flash_bwd_dq_dk_dv' -c 3 -o /tmp/ncu192 \
  python3 bench/sm80_bwd_turns.py --old /tmp/v40.so --new /tmp/v42.so --runs 1 --reps 1 \
  --points "192,2048,0,$f" > /tmp/ncu_run.log 2>&1
echo "ncu rc $?"
ncu --import /tmp/ncu192.ncu-rep > $OUT/ncu.log 2>&1
grep -E "backward_kernel|flash_bwd|Duration|Warp Cycles Per Issued|Issue Slots Busy|Executed Instructions  |op_ldsm|hmma_cycles|op_red|inst_executed.sum" \
  $OUT/ncu.log | sed -E 's/\(fattn::.*//; s/<Flash_bwd_kernel_traits.*//' | cut -c1-140 | head -40
ncu --import /tmp/ncu192.ncu-rep --page source --csv --print-source sass > /tmp/source.csv 2>&1
python3 bench/sm80_bwd_ncu_phases.py opcodes /tmp/source.csv 2 2097152 0 > $OUT/ncu_by_opcode.txt 2>&1
head -30 $OUT/ncu_by_opcode.txt
# Two config-only candidates on the taken 192 Large table (old = main): s1 ScoreStatisticsAhead
# with ScorePassesByQueryTile (one ahead), s2 WarpSearchedQueryRange.
for v in s1 s2; do
  xz -dc build-s22$v/carry/new.so.xz > /tmp/new_$v.so && xz -dc build-s22$v/carry/old.so.xz > /tmp/old_$v.so
  timeout 60 python3 bench/sm80_bwd_turns.py --old /tmp/old_$v.so --new /tmp/new_$v.so --runs 3 \
    --points "192,2048,0,$f;192,2048,1,$f;144,2048,0,$f;192,512,1,64,16,fp16" 2>&1 | grep -v Warning \
    | tee "$OUT/turns_$v.txt"
done
if [ -f build-s22fwin/carry/new.so.xz ]; then
  xz -dc build-s22fwin/carry/new.so.xz > /tmp/fnew.so && xz -dc build-s22fwin/carry/old.so.xz > /tmp/fold.so
  points=""
  for D in 161 185 145 210 233 234 129 192; do points+="$D,2048,0,$f;"; done
  points+="161,2048,1,$f;233,2048,1,$f;161,2048,0,16,16,bf16"
  timeout 150 python3 bench/sm80_fwd_turns.py --old /tmp/fold.so --new /tmp/fnew.so --runs 3 \
    --points "$points" 2>&1 | grep -v Warning | tee "$OUT/fwd_turns.txt"
fi
sm80_gpu_check_wait
sm80_gpu_check_run 585 "${SM80_CHECKS[@]}"
(cd "$OUT" && tar czf gc.tgz --remove-files gc gc-build.txt)
