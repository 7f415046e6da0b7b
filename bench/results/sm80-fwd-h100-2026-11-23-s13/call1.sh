#!/bin/bash
# h13-fwd80 call 1 (H100): ncu of the table's forward and PyTorch's flash at N = 512 (D 64/128/256)
# and D = 128 N = 16k, non-causal; the sustained (clock/power) comparison at large N; the call-1
# candidates (shim variants 41, 42, 43) in turns beside the table and flash.
#   LIB=<shim> OUT=<dir> bash bench/results/sm80-fwd-h100-2026-11-23-s13/call1.sh
set -o pipefail
export PYTHONUNBUFFERED=1
H=bench/results/sm80-fwd-h100-2026-11-23-s13
L=${LIB:?shim}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,power.limit --format=csv
SECTIONS="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section SchedulerStats --section LaunchStats --section InstructionStats --section ComputeWorkloadAnalysis"
ncu_point() {  # tag dims seqlen count
  timeout 100 ncu $SECTIONS --metrics dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum \
    -k 'regex:forward_kernel|flash_fwd' -c $4 -o $OUT/ncu-$1 \
    python3 bench/sm80_vs_torch.py --lib $L --profile --fwd-only --profile-flash \
    --profile-dims $2 --profile-seqlen $3 > $OUT/ncu-$1.log 2>&1
  echo "== ncu $1 rc $?"
  ncu --import $OUT/ncu-$1.ncu-rep --page raw --csv 2>/dev/null | python3 $H/ncu13_summary.py
}
echo "== $(date +%T) ncu"
ncu_point n512 64,128,256 512 6
ncu_point n16k 128 16384 2
echo "== $(date +%T) turns"
nc() { local o=""; for N in 512 1024 2048 4096 8192 16384; do o+="$1,$N,0;"; done; echo "${o%;}"; }
timeout 150 python3 $H/turns13.py --lib $L --variants 41,42,43 --json $OUT/turns.json \
  --points "$(nc 256);$(nc 64);$(nc 128);256,512,1;128,4096,1" 2>&1 | grep -v Warning
echo "== $(date +%T) sustained"
timeout 60 python3 $H/turns13.py --lib $L --sustained --seconds 1.2 --rounds 2 --json $OUT/sustained.json \
  --points "128,16384,0;128,8192,0;256,8192,0;128,2048,0" 2>&1 | grep -v Warning
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv
cd $OUT && tar czf ncu.tgz ncu-*.ncu-rep ncu-*.log && rm -f ncu-*.ncu-rep ncu-*.log
echo "== $(date +%T) done"
