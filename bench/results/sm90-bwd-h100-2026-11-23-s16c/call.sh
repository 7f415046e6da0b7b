#!/bin/bash
# h16-bwd90c: D=128 bf16 backward, dQ in register order + 1-D bulk reduction (variant 2,
# d128_regorder) against main's row (variant 1, d128): check, sanitizers, timing in turns with
# cuDNN (5 rounds), second pass reversed.
set -o pipefail
source scripts/gpu-env.sh
export PYTHONUNBUFFERED=1 PYTHONPATH=bench
C=build-h16-bwd90c/carry; LIB=$C/libsm90bwdvariants.so; S=$C/sm90_bwd_variants.py
T0=$SECONDS
el() { echo "[t=$((SECONDS - T0)) s] $*"; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
timeout 35 python3 $S --lib $LIB --check --variants 1,2 > $OUT/check.log 2>&1; el "check rc $?"; grep -E "check:|FAIL|rror" $OUT/check.log | head -30
timeout 25 compute-sanitizer --tool memcheck python3 $S --lib $LIB --small --variants 2 > $OUT/memcheck.log 2>&1; el "memcheck rc $?: $(grep -E 'ERROR SUMMARY' $OUT/memcheck.log | tail -1)"; grep check: $OUT/memcheck.log
timeout 30 compute-sanitizer --tool racecheck python3 $S --lib $LIB --small --variants 2 > $OUT/racecheck.log 2>&1; el "racecheck rc $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $OUT/racecheck.log | tail -1)"; grep check: $OUT/racecheck.log
timeout 45 python3 $S --lib $LIB --bench --variants 1,2 --head-dims 128 --rounds 5 --peers cudnn --json $OUT/benchA.json > $OUT/benchA.log 2>&1; el "benchA rc $?"; grep -v '^|---' $OUT/benchA.log
R=$((172 - (SECONDS - T0)))
[ $R -gt 20 ] && { timeout $R python3 $S --lib $LIB --bench --variants 1,2 --head-dims 128 --rounds 5 --reverse --peers cudnn --json $OUT/benchB.json > $OUT/benchB.log 2>&1; el "benchB rc $?"; grep -v '^|---' $OUT/benchB.log; }
el done
