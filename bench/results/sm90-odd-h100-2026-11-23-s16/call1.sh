#!/bin/bash
# h16-odd90 call 1: ncu of the width kernels at D = 72/80, 136/144, 200/208 (fp16, B=16 H=16
# N=2048, non-causal; packed, and D = 72/136 with rows padded to D + 8) for main's kernel (old)
# and the sector-aligned boxes (new), then old vs new timed in turns (two orders), then the
# bench script's checks for new. Carried: build-h16-odd90/c1/shims.tar.xz ({old,new}/libsm90shim.so, fp16).
set -o pipefail
source scripts/gpu-env.sh
C=build-h16-odd90/c1 R=/tmp/h16run S=bench/sm90_vs_cudnn.py
mkdir -p $R && tar xJf $C/shims.tar.xz -C $R && cp $C/odd_probe.py $R/
export PYTHONUNBUFFERED=1
T=$(mktemp -d)
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
POINTS="72,bshd,0,old;72,pad,0,old;80,bshd,0,old;72,bshd,0,new;136,bshd,0,old;136,pad,0,old;144,bshd,0,old;136,bshd,0,new;200,bshd,0,old;208,bshd,0,old;200,bshd,0,new"
BENCH_DIR=bench timeout 120 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis \
  --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SchedulerStats \
  --section SourceCounters -k regex:forward_kernel -f -o $T/probe \
  python3 $R/odd_probe.py --lib old=$R/old/libsm90shim.so --lib new=$R/new/libsm90shim.so \
  --points "$POINTS" > $OUT/ncu_run.log 2>&1
echo "ncu rc $? ($SECONDS s)"; grep -E "^launch|Error|ERROR" $OUT/ncu_run.log | head -20
ncu -i $T/probe.ncu-rep --page raw --csv > $OUT/raw.csv 2> $OUT/raw.err
ncu -i $T/probe.ncu-rep --page details > $OUT/details.txt 2>&1
ncu -i $T/probe.ncu-rep --page source --csv --print-source sass 2> $OUT/source.err | xz -1 > $OUT/source.csv.xz
echo "exports done ($SECONDS s)"; ls -la $OUT
for order in "new old" "old new"; do
  libs=""; for v in $order; do libs="$libs --lib $v=$R/$v/libsm90shim.so"; done
  tag=${order%% *}first
  timeout 60 python3 $S $libs --bench --no-flash --dtype fp16 --shape 16,16 --seqlens 2048 \
    --causal 0,1 --dims 72,80,136,144,200,208 --json $OUT/time_$tag.json > $OUT/time_$tag.log 2>&1
  echo "timing ($order) rc $? ($SECONDS s)"; grep -v "^|---" $OUT/time_$tag.log | grep -E "^\||GEMM"
done
timeout 45 python3 $S --lib new=$R/new/libsm90shim.so --check > $OUT/check.log 2>&1
echo "check rc $? ($SECONDS s): $(grep -E 'check:' $OUT/check.log)"; grep -E "FAIL" $OUT/check.log | head -5
