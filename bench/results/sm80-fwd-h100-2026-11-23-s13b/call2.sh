#!/bin/bash
# h13-fwd80b call 2 (H100): the v14b candidate (the 13-step D = 193..208 tile with
# WholePrologueCopies; every other kernel as HEAD) against HEAD in turns, with NEW's bf16 variants:
# 60 = HEAD's 256 tiles spelled out, 62 = call 1's 256 table (two-chunk whole-chunk copies),
# 66 = the 256 table with one-chunk whole-chunk copies, 65 = call 1's 13-step tile, 63 = 65 with
# WholePrologueCopies; ncu of HEAD's 256 table and variant 62 at N = 512; meanwhile the library's
# sm80 GPU tests build from the candidate tree (TREE), then the tests, memcheck and racecheck.
#   source scripts/gpu-env.sh; OLD=.. NEW=.. TREE=.. OUT=.. bash .../call2.sh
set -o pipefail
export PYTHONUNBUFFERED=1
H=$PWD/bench/results/sm80-fwd-h100-2026-11-23-s13b
S13=$PWD/bench/results/sm80-fwd-h100-2026-11-23-s13
source bench/sm80_call_steps.sh
sm80_build_tree_tests ${TREE:?tree} "256" 16
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
echo "== $(date +%T) turns"
b16="16,16,bf16"; f16="16,16,fp16"
timeout 50 python3 $H/turns14.py --old ${OLD:?old} --new ${NEW:?new} --variants 60,62,66,63 \
  --json $OUT/turns.json --points "256,512,0;256,2048,0;200,2048,0,$b16;200,2048,1,$b16;200,512,0;\
200,8192,0;200,2048,0,$f16;200,2048,1,$f16;256,2048,0,$f16" 2>&1 | grep -v Warning
echo "== $(date +%T) ncu"
timeout 25 ncu --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
  --section LaunchStats --section Occupancy --metrics smsp__inst_executed.sum,dram__bytes_read.sum \
  -k regex:forward_kernel --launch-skip 3 -c 2 -o $OUT/ncu256 \
  python3 $H/turns14.py --old $OLD --new $NEW --variants 62 --profile old,v62 --points 256,512,0 \
  > $OUT/ncu256.log 2>&1
echo "ncu rc $?"
ncu --import $OUT/ncu256.ncu-rep --page raw --csv 2>/dev/null | python3 $S13/ncu13_summary.py
sm80_run_forward_tests 30 20 'FullWidth/*'
sm80_pack_logs ncu256.log
echo "== $(date +%T) done"
