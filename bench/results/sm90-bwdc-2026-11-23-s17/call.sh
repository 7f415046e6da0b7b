#!/bin/bash
# h17-bwdc90: the causal D=128 bf16 backward. Rows (bench/sm90_bwd_variants.cu): 2 = d128 (main's
# masked D=128 row), 6 = d128_bisect (query-tile range by bisection instead of a scan of every
# tile), 7 = d128_bisect_skip (that, plus the consumer whose 64 keys no query of the step sees
# skipping Sᵀ/dPᵀ/dV/dK); cuDNN in the same process. Check (odd N, GQA, causal and not), timing in
# turns (5 rounds; causal N=1k/4k/16k + non-causal 4k as control), memcheck + racecheck --small
# on row 7, the timing's second pass in reversed order, then (time left) ncu memory counters at
# 16k (rows 2 and 7, causal and not).
# Run: carry ["build-h17-bwdc90", ".deps"], timeout_s 120 (the steps' timeouts end it by ~108 s).
set -o pipefail
T0=$SECONDS; END=108  # seconds from the script's start (gpu-env included)
source scripts/gpu-env.sh
export PYTHONUNBUFFERED=1 PYTHONPATH=bench
C=build-h17-bwdc90/carry; LIB=$C/libsm90bwdvariants.so; S=$C/sm90_bwd_variants.py
el() { echo "[t=$((SECONDS - T0)) s] $*"; }
if [ ! -f $LIB ]; then  # not carried: build it here (the branch must be in the tree)
  mkdir -p $C; bench/sm90_bwd_variants_build.sh $C 16 > $OUT/shim_build.log 2>&1; el "shim build rc $?"
  cp bench/sm90_bwd_variants.py $C/
fi
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
python3 -c "import ctypes; l=ctypes.CDLL('$LIB'); l.fattn_sm90_bwd_variant_name.restype=ctypes.c_char_p; print([l.fattn_sm90_bwd_variant_name(i).decode() for i in range(l.fattn_sm90_bwd_variant_count())])"
timeout 30 python3 $S --lib $LIB --check --variants 2,6,7 > $OUT/check.log 2>&1; el "check rc $?"; grep -E "check:|FAIL|rror" $OUT/check.log | head -20
P="1024:1,4096:1,16384:1,4096:0"
timeout 30 python3 $S --lib $LIB --bench --variants 2,6,7 --head-dims 128 --points $P --rounds 5 --peers cudnn --json $OUT/benchA.json > $OUT/benchA.log 2>&1; el "benchA rc $?"; grep -v '^|---' $OUT/benchA.log
timeout 22 compute-sanitizer --tool memcheck python3 $S --lib $LIB --small --variants 7 > $OUT/memcheck.log 2>&1; el "memcheck rc $?: $(grep -E 'ERROR SUMMARY' $OUT/memcheck.log | tail -1)"; grep check: $OUT/memcheck.log
timeout 28 compute-sanitizer --tool racecheck python3 $S --lib $LIB --small --variants 7 > $OUT/racecheck.log 2>&1; el "racecheck rc $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $OUT/racecheck.log | tail -1)"; grep check: $OUT/racecheck.log
R=$((END - (SECONDS - T0)))
[ $R -ge 15 ] && { timeout $([ $R -gt 30 ] && echo 30 || echo $R) python3 $S --lib $LIB --bench --variants 2,6,7 --head-dims 128 --points $P --rounds 5 --reverse --peers cudnn --json $OUT/benchB.json > $OUT/benchB.log 2>&1; el "benchB rc $?"; grep -v '^|---' $OUT/benchB.log; }
R=$((END - (SECONDS - T0)))
if [ $R -ge 20 ]; then  # diagnosis: DRAM bytes / L2 hit rate of the main kernel at 16k, causal vs not
  timeout $R ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --metrics dram__bytes_read.sum,dram__bytes_write.sum -k 'regex:(^|::)backward_kernel' python3 $S --lib $LIB --variants 2,7 --profile "128,16384,1;128,16384,0" > $OUT/ncu16k.log 2>&1; el "ncu rc $?"
  grep -E "^  [a-z_].*\(|Duration|DRAM Throughput|L2 Hit Rate|dram__bytes" $OUT/ncu16k.log | cut -c1-140
fi
python3 $C/summarize.py $OUT/benchA.json $OUT/benchB.json 2>&1 | tee $OUT/summary.txt
el done
