#!/bin/bash
# h15-mufu's prepared call (next session; H100, timeout_s 200, expected wall ~140 s, at most ~190
# by the steps' timeouts): the 128 bucket's table tile with ExponentsUnderPv in its unmasked
# kernel (variant 91) and the register change that lets it fit (variant 90:
# EpilogueWarpRowAfresh alone), against the table in turns,
# PyTorch's flash in the same turns (bench/sm80_fwd_turns.py --lib; variants are bf16 only).
# SHIM = main 054777f's d128 fp16 / bf16 forward instances + variants_mufu.cu + bench/sm80_shim.cu
# + bench/sm80_forward_shim_stubs.cu -DFATTN_SHIM_FORWARD_128, sm_90a (NOTES.md: how it was built).
# Then the variant's correctness checks (bench/sm80_vs_torch.py --check, bf16, D = 128 bucket) and
# memcheck / racecheck on the --small checks.
#   source scripts/gpu-env.sh; C=build-h15-mufu/carry OUT=$OUT bash build-h15-mufu/carry/call_next.sh
set -o pipefail
export PYTHONUNBUFFERED=1
C=${C:?carry dir}
TURNS=$PWD/bench/sm80_fwd_turns.py
CHECK=$PWD/bench/sm80_vs_torch.py
xz -dc $C/mufu.so.xz > /tmp/mufu.so
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,power.limit \
  --format=csv,noheader
echo "== $(date +%T) (at $SECONDS s) turns"
b="16,16,bf16"
points="128,2048,0,$b;128,512,0;128,4096,0;128,8192,0;128,2048,1,$b;112,2048,0,$b"
timeout 70 python3 $TURNS --lib /tmp/mufu.so --variants 90,91 --runs 5 --json $OUT/turns.json \
  --points "$points" 2>&1 | grep -v Warning | tee $OUT/turns.txt
# Per-run ratios (the --lib form prints only medians): v91 / table, v91 / v90, v90 / table.
python3 - $OUT/turns.json <<'PY' | tee -a $OUT/turns.txt
import json, sys
for row in json.load(open(sys.argv[1])):
    runs = row["runs"]
    ratio = lambda a, b: " ".join(f"{r[a] / r[b]:.3f}" for r in runs)
    print(f"D={row['D']} N={row['N']} causal={int(row['causal'])}: v91/table {ratio('v91', 'table')}"
          f" | v91/v90 {ratio('v91', 'v90')} | v90/table {ratio('v90', 'table')}")
PY
echo "== $(date +%T) (at $SECONDS s) checks"
# v91 on every bf16 D = 128 check case, v90 (the same masked kernel) on the --small ones.
for v in 91 90; do
  size=--check; [ $v = 90 ] && size=--small
  timeout 25 python3 $CHECK --lib /tmp/mufu.so $size --fwd-only --check-dims 128 \
    --forward-variant $v > $OUT/check-v$v.log 2>&1
  echo "check v$v rc $?: $(grep -c '^FAIL' $OUT/check-v$v.log) FAIL; $(grep '^check:' $OUT/check-v$v.log)"
done
for tool in memcheck racecheck; do
  timeout 45 compute-sanitizer --tool $tool --error-exitcode 1 python3 $CHECK --lib /tmp/mufu.so \
    --small --fwd-only --check-dims 128 --forward-variant 91 > $OUT/sanitizer-$tool.log 2>&1
  echo "== $(date +%T) $tool rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/sanitizer-$tool.log | tail -1)"
done
(cd $OUT && tar czf logs.tgz check-v*.log sanitizer-*.log && rm -f check-v*.log sanitizer-*.log)
echo "== $(date +%T) (at $SECONDS s) done"
