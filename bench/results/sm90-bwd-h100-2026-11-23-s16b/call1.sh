#!/bin/bash
# h16-bwd90b: D=128 bf16 backward variants (0 d128 = main/around_dq, 1 +LSE before the Sᵀ wait,
# 2 +dSᵀ stmatrix, 3 both, 4 both + D_i before the dPᵀ wait): check, timing in turns with cuDNN
# (5 rounds), sanitizers on the best, second timing pass in reversed order.
set -o pipefail
source scripts/gpu-env.sh
export PYTHONUNBUFFERED=1 PYTHONPATH=bench
C=build-h16-bwd90b/carry; LIB=$C/libsm90bwdvariants.so; S=$C/sm90_bwd_variants.py
T0=$SECONDS
el() { echo "[t=$((SECONDS - T0)) s] $*"; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
timeout 40 python3 $S --lib $LIB --check > $OUT/check.log 2>&1; el "check rc $?"; grep -E "check:|FAIL" $OUT/check.log
timeout 55 python3 $S --lib $LIB --bench --head-dims 128 --rounds 5 --peers cudnn --json $OUT/benchA.json > $OUT/benchA.log 2>&1; el "benchA rc $?"; grep -v '^|---' $OUT/benchA.log
BEST=$(python3 - "$OUT/benchA.json" <<'PY'
import json, math, os, sys
rows = json.load(open(sys.argv[1]))["rows"]
names = ["d128_lse", "d128_stsm", "d128_both", "d128_both_di"]
best, score = 3, 0
for i, n in enumerate(names, 1):
    r = [row[n] / row["d128"] for row in rows if isinstance(row.get(n), float) and row.get("d128")]
    g = math.exp(sum(map(math.log, r)) / len(r)) if r else 0
    print(f"# {n}: geomean {g:.4f} over {len(r)}", file=sys.stderr)
    if g > score: best, score = i, g
print(best)
PY
)
el "best variant index $BEST"
timeout 30 compute-sanitizer --tool memcheck python3 $S --lib $LIB --small --variants $BEST > $OUT/memcheck.log 2>&1; el "memcheck rc $?: $(grep -E 'ERROR SUMMARY' $OUT/memcheck.log | tail -1)"; grep check: $OUT/memcheck.log
timeout 40 compute-sanitizer --tool racecheck python3 $S --lib $LIB --small --variants $BEST > $OUT/racecheck.log 2>&1; el "racecheck rc $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $OUT/racecheck.log | tail -1)"; grep check: $OUT/racecheck.log
R=$((170 - (SECONDS - T0)))
[ $R -gt 25 ] && { timeout $R python3 $S --lib $LIB --bench --head-dims 128 --rounds 5 --reverse --peers cudnn --json $OUT/benchB.json > $OUT/benchB.log 2>&1; el "benchB rc $?"; grep -v '^|---' $OUT/benchB.log; }
el done
