#!/bin/bash
# h16-bwd90 call 1: D=128 bf16 backward, ours (main row = variant 0, GradIssue::around_dq = 1)
# vs SDPA cuDNN: correctness, ncu (sections + source counters), timing in turns, memcheck.
set -o pipefail
source scripts/gpu-env.sh
export PYTHONUNBUFFERED=1
C=build-h16-bwd90/carry; LIB=$C/libsm90bwdvariants.so; S=bench/sm90_bwd_variants.py
T0=$SECONDS
el() { echo "[t=$((SECONDS - T0)) s] $*"; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
SEC="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --print-details all --metrics lts__t_sectors_op_red.sum"
timeout 50 python3 $S --lib $LIB --check > $OUT/check.log 2>&1; el "check rc $?"; grep -E "check:" $OUT/check.log
timeout 45 ncu $SEC -k 'regex:(^|::)backward_kernel' python3 $S --lib $LIB --profile 128,4096,0 > $OUT/ncu_ours_nc.log 2>&1; el "ncu ours nc rc $?"
timeout 40 ncu $SEC -k regex:bprop -c 1 python3 $C/sm90_bwd_cudnn_profile.py 128,4096,0 > $OUT/ncu_cudnn_nc.log 2>&1; el "ncu cudnn nc rc $?"
if ! grep -q "bprop" $OUT/ncu_cudnn_nc.log; then
  timeout 30 ncu --section SpeedOfLight -c 12 python3 $C/sm90_bwd_cudnn_profile.py 128,4096,0 > $OUT/ncu_cudnn_list.log 2>&1; el "ncu list rc $?"
  grep "Profiling" $OUT/ncu_cudnn_list.log | head -12
fi
grep -E "^  [a-z_].*\(|Duration|SM Frequency|Compute \(SM\) Throughput|Pipe Tensor Cycles Active|Issue Slots Busy|Warp Cycles Per Issued|L2 Cache Throughput|DRAM Throughput|lts__t_sectors_op_red.sum  |Registers Per" $OUT/ncu_ours_nc.log $OUT/ncu_cudnn_nc.log | cut -c1-150
timeout 75 python3 $S --lib $LIB --bench --head-dims 128 --rounds 3 --peers cudnn --json $OUT/bench.json > $OUT/bench.log 2>&1; el "bench rc $?"; grep -v '^|---' $OUT/bench.log
timeout 35 ncu --section SourceCounters --section WarpStateStats -k 'regex:(^|::)backward_kernel' -c 1 -f -o /tmp/src_v0 python3 $S --lib $LIB --profile 128,4096,0 --variants 0 > $OUT/src_ours_v0.err 2>&1; el "src ours rc $?"
ncu -i /tmp/src_v0.ncu-rep --page source --csv --print-source sass > $OUT/src_ours_v0.csv 2>>$OUT/src_ours_v0.err
timeout 35 ncu --section SourceCounters --section WarpStateStats -k regex:bprop -c 1 -f -o /tmp/src_cudnn python3 $C/sm90_bwd_cudnn_profile.py 128,4096,0 > $OUT/src_cudnn.err 2>&1; el "src cudnn rc $?"
ncu -i /tmp/src_cudnn.ncu-rep --page source --csv --print-source sass > $OUT/src_cudnn.csv 2>>$OUT/src_cudnn.err
for f in $OUT/src_*.csv; do python3 bench/sm90_ncu_source_summary.py $f --top 12 > ${f%.csv}.summary.txt 2>&1; head -30 ${f%.csv}.summary.txt; done
xz -T4 $OUT/src_*.csv 2>/dev/null
timeout 40 compute-sanitizer --tool memcheck python3 $S --lib $LIB --small --variants 1 > $OUT/memcheck.log 2>&1; el "memcheck rc $?: $(grep -E 'ERROR SUMMARY' $OUT/memcheck.log | tail -1)"; grep check: $OUT/memcheck.log
el done
