#!/bin/bash
# h16-bwd90e: D=128 bf16 backward, DqSplit::alternate (shim row 5, d128_alt: one consumer per step
# computes the whole 64x128 dQ with m64n128 wgmmas, in turns) against main's row (row 2, d128:
# DqSplit::head_dim + around_dq + bulk_register_order) and cuDNN: check (odd N, GQA, causal),
# memcheck + racecheck on --small, timing in turns (5 rounds), second pass reversed. <= 150 s.
# Run with carry ["build-h16-bwd90e", ".deps"] after building the shim at the desk (NOTES.md,
# "Local build"); if the carried shim is missing and the branch is merged, it builds it here.
set -o pipefail
source scripts/gpu-env.sh
export PYTHONUNBUFFERED=1 PYTHONPATH=bench
C=build-h16-bwd90e/carry; LIB=$C/libsm90bwdvariants.so; S=$C/sm90_bwd_variants.py
T0=$SECONDS
el() { echo "[t=$((SECONDS - T0)) s] $*"; }
if [ ! -f $LIB ]; then
  mkdir -p $C; bench/sm90_bwd_variants_build.sh $C 16 > $OUT/shim_build.log 2>&1; el "shim build rc $?"
  cp bench/sm90_bwd_variants.py $C/
fi
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
python3 -c "import ctypes,sys; l=ctypes.CDLL('$LIB'); l.fattn_sm90_bwd_variant_name.restype=ctypes.c_char_p; print([l.fattn_sm90_bwd_variant_name(i).decode() for i in range(l.fattn_sm90_bwd_variant_count())])"
timeout 35 python3 $S --lib $LIB --check --variants 2,5 > $OUT/check.log 2>&1; el "check rc $?"; grep -E "check:|FAIL|rror" $OUT/check.log | head -30
timeout 25 compute-sanitizer --tool memcheck python3 $S --lib $LIB --small --variants 5 > $OUT/memcheck.log 2>&1; el "memcheck rc $?: $(grep -E 'ERROR SUMMARY' $OUT/memcheck.log | tail -1)"; grep check: $OUT/memcheck.log
timeout 30 compute-sanitizer --tool racecheck python3 $S --lib $LIB --small --variants 5 > $OUT/racecheck.log 2>&1; el "racecheck rc $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $OUT/racecheck.log | tail -1)"; grep check: $OUT/racecheck.log
timeout 45 python3 $S --lib $LIB --bench --variants 2,5 --head-dims 128 --rounds 5 --peers cudnn --json $OUT/benchA.json > $OUT/benchA.log 2>&1; el "benchA rc $?"; grep -v '^|---' $OUT/benchA.log
R=$((142 - (SECONDS - T0)))
[ $R -gt 20 ] && { timeout $R python3 $S --lib $LIB --bench --variants 2,5 --head-dims 128 --rounds 5 --reverse --peers cudnn --json $OUT/benchB.json > $OUT/benchB.log 2>&1; el "benchB rc $?"; grep -v '^|---' $OUT/benchB.log; }
el done
