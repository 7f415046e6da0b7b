#!/bin/bash
# h16-odd90 v4, for the next session's device call (never run in the sixteenth session):
# (1) the bench script's checks of the v4 shim (every bucket; packed D = 72 / 200 with H = 2
# take the sector kernels), (2) old vs v4 in turns (odd_turns.py: 3 runs, fp16 / bf16, causal
# and not, N = 2048 (B = 16) and 8192 (B = 4), H = 16, D = 72 / 136 / 200, controls 80 / 208),
# (3) the sm90 forward sector and width tests, (4) memcheck on three sector cases, (5) ncu L2
# counters of old vs new at D = 72 (odd_probe.py). Carried: build-h16-odd90/c3/pack.tar.xz
# ({old,new}/libsm90shim.so, lib/libfattn.so.0, fattn_cuda_tests), odd_turns.py, odd_probe.py.
set -o pipefail
source scripts/gpu-env.sh
C=build-h16-odd90/c3 R=/tmp/h16 S=bench/sm90_vs_cudnn.py
mkdir -p $R && tar xJf $C/pack.tar.xz -C $R && cp $C/odd_turns.py $C/odd_probe.py $R/
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$R/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 50 python3 $S --lib new=$R/new/libsm90shim.so --check > $OUT/check.log 2>&1
echo "check rc $? ($SECONDS s): $(grep -E 'check:' $OUT/check.log)"; grep -iE "FAIL|error" $OUT/check.log | head -5
timeout 90 python3 $R/odd_turns.py --lib new=$R/new/libsm90shim.so --lib old=$R/old/libsm90shim.so \
  --json $OUT/turns.json > $OUT/turns.log 2>&1
echo "turns rc $? ($SECONDS s)"; sed -n '/^| point/,$p' $OUT/turns.log; grep -iE "error|Traceback" $OUT/turns.log | head -3
timeout 50 $R/fattn_cuda_tests --gtest_filter='*Sm90Forward*sector*:*Sm90Forward*width80*:*Sm90Forward*width112*:*Sm90Forward*width144*:*Sm90Forward*width208*:*Sm90Forward*width224_d216*:*Sm90Forward*d136_decode*:*Sm90Forward*d72_padded*:*Sm90Forward*d200_padded*' > $OUT/gtest.log 2>&1
echo "gtest rc $? ($SECONDS s)"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|tests ran" $OUT/gtest.log | head -12
timeout 40 compute-sanitizer --tool memcheck $R/fattn_cuda_tests \
  --gtest_filter='*Sm90Forward*sector_d72*:*Sm90Forward*sector_d200_producer_stores*:*Sm90Forward*sector_d216_window*' > $OUT/memcheck.log 2>&1
echo "memcheck rc $? ($SECONDS s): $(grep -E 'ERROR SUMMARY' $OUT/memcheck.log | tail -1) $(grep -E '^\[  PASSED' $OUT/memcheck.log)"
BENCH_DIR=bench timeout 60 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis_Tables \
  -k regex:forward_kernel -f -o /tmp/h16/probe python3 $R/odd_probe.py \
  --lib old=$R/old/libsm90shim.so --lib new=$R/new/libsm90shim.so \
  --points "72,bshd,0,old;72,bshd,0,new;72,pad,0,old;136,bshd,0,old;136,bshd,0,new" > $OUT/ncu_run.log 2>&1
echo "ncu rc $? ($SECONDS s)"; ncu -i /tmp/h16/probe.ncu-rep --page raw --csv > $OUT/raw.csv 2>/dev/null
python3 - $OUT/raw.csv <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1]))); h = rows[0]
for m in ("gpu__time_duration.sum", "lts__t_sectors_srcunit_tex_op_read.sum",
          "lts__t_requests_srcunit_tex_op_read.sum", "lts__throughput.avg.pct_of_peak_sustained_elapsed"):
    if m in h: print(m, [r[h.index(m)] for r in rows[2:]])
PY
