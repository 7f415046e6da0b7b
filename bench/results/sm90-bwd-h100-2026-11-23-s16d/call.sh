#!/bin/bash
# h16-bwd90d: D = 64 bf16 backward (kBlockM = 128, DqSplit::queries), dQ in register order + 1-D
# bulk reduction (variant 1, d64_regorder) against main's row (variant 0, d64 = bulk_tensor):
# check (incl. N = 17 causal/GQA, N = 1013 causal and GQA 4:1), sanitizers on --small, timing in
# turns with cuDNN (5 rounds), second pass reversed. Shim built at the desk and carried:
#   bench/sm90_bwd_variants_build.sh /work/main/build-h16-bwd90d/carry 2
#   cp bench/sm90_bwd_variants.py /work/main/build-h16-bwd90d/carry/
#   run(carry=["build-h16-bwd90d", ".deps"], timeout_s=150,
#       command="bash build-h16-bwd90d/call.sh")   (copy this file there first)
set -o pipefail
source scripts/gpu-env.sh
export PYTHONUNBUFFERED=1 PYTHONPATH=bench
C=build-h16-bwd90d/carry; LIB=$C/libsm90bwdvariants.so; S=$C/sm90_bwd_variants.py
T0=$SECONDS
el() { echo "[t=$((SECONDS - T0)) s] $*"; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
timeout 30 python3 $S --lib $LIB --check --variants 0,1 --head-dims 64 > $OUT/check.log 2>&1; el "check rc $?"; grep -E "check:|FAIL|rror" $OUT/check.log | head -30
timeout 20 compute-sanitizer --tool memcheck python3 $S --lib $LIB --small --variants 1 --head-dims 64 > $OUT/memcheck.log 2>&1; el "memcheck rc $?: $(grep -E 'ERROR SUMMARY' $OUT/memcheck.log | tail -1)"; grep check: $OUT/memcheck.log
timeout 25 compute-sanitizer --tool racecheck python3 $S --lib $LIB --small --variants 1 --head-dims 64 > $OUT/racecheck.log 2>&1; el "racecheck rc $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $OUT/racecheck.log | tail -1)"; grep check: $OUT/racecheck.log
timeout 35 python3 $S --lib $LIB --bench --variants 0,1 --head-dims 64 --rounds 5 --peers cudnn --json $OUT/benchA.json > $OUT/benchA.log 2>&1; el "benchA rc $?"; grep -v '^|---' $OUT/benchA.log
R=$((140 - (SECONDS - T0)))
[ $R -gt 15 ] && { timeout $R python3 $S --lib $LIB --bench --variants 0,1 --head-dims 64 --rounds 5 --reverse --peers cudnn --json $OUT/benchB.json > $OUT/benchB.log 2>&1; el "benchB rc $?"; grep -v '^|---' $OUT/benchB.log; }
el done
