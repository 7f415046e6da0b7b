#!/bin/bash
# One GPU-machine call for the sm80 forward (docs/perf-notes.md "Forward v4"): a proposed kernel
# (SM80_NEW_LIB, built with bench/sm80_build.sh and SM80_NVCC_FLAGS) checked and timed side by
# side with the committed one (SM80_OLD_LIB) and PyTorch's flash and cuDNN, in one process.
# Steps (SM80_FWD_STEPS, in order; default all):
#   check     forward against the fp32 torch reference over every head dim of issue 5
#             (bench/sm80_vs_torch.py --check --fwd-only; a negative scale in every 4th case)
#   bench     bf16, B·N = 16384, H·D = 2048, D 64/128/256 × N 1k/4k/16k × causal: new, committed
#             (--baseline), flash, cuDNN forward TFLOP/s in the same rows
#   variants  the tile alternatives of bench/sm80_variants.cu at the same points
#   memcheck, racecheck   compute-sanitizer on --small (whole and partial K/V tiles, every bucket)
#   ncu       (not by default) stall reasons of one new forward each at D = 64, 128, 256
# Logs go to $OUT as each step ends (at most 8 files come back); a summary on stdout.
#   source scripts/gpu-env.sh; bench/sm80_fwd_device_run.sh
set -o pipefail
export PYTHONUNBUFFERED=1
NEW=${SM80_NEW_LIB:-build-fwd80/shim-new/libsm80shim.so}
OLD=${SM80_OLD_LIB:-build-fwd80/shim-old/libsm80shim.so}
S=bench/sm80_vs_torch.py
SEQLENS=${SM80_FWD_SEQLENS:-1024,4096,16384}
STEPS=${SM80_FWD_STEPS:-check bench variants memcheck racecheck}
LOGS=${OUT:?set OUT to the folder for the logs}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
step_check() {
  timeout 90 python3 $S --lib $NEW --check --fwd-only > $LOGS/check.log 2>&1
  echo "check rc $?: $(grep -E 'check:' $LOGS/check.log)"; grep FAIL $LOGS/check.log | head -5
}
step_bench() {
  timeout 150 python3 $S --lib $NEW --baseline $OLD --bench --fwd-only --no-odd \
    --seqlens $SEQLENS --json $LOGS/bench.json > $LOGS/bench.log 2>&1
  echo "bench rc $?"; grep -v '^{' $LOGS/bench.log | grep -v '^|---'
}
step_variants() {
  timeout 100 python3 $S --lib $NEW --variants --variant-seqlens $SEQLENS \
    --json $LOGS/variants.json > $LOGS/variants.log 2>&1
  echo "variants rc $?"
  python3 - $LOGS/variants.json <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["variants"]
table = {(r["D"], r["N"], r["causal"]): r["fwd"] for r in rows if r["variant"] == 0}
for r in rows:
    base = table[(r["D"], r["N"], r["causal"])]
    print(f"D={r['D']} N={r['N']} causal={int(r['causal'])} v{r['variant']} {r['fwd']:.0f} "
          f"({r['fwd'] / base:.3f} of the table) {r['config']}")
PY
}
step_memcheck() {
  timeout 90 compute-sanitizer --tool memcheck python3 $S --lib $NEW --small --fwd-only \
    > $LOGS/memcheck.log 2>&1
  echo "memcheck rc $?: $(grep -E 'ERROR SUMMARY' $LOGS/memcheck.log | tail -1)" \
    "$(grep 'check:' $LOGS/memcheck.log)"
}
step_racecheck() {
  timeout 120 compute-sanitizer --tool racecheck python3 $S --lib $NEW --small --fwd-only \
    > $LOGS/racecheck.log 2>&1
  echo "racecheck rc $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $LOGS/racecheck.log | tail -1)" \
    "$(grep 'check:' $LOGS/racecheck.log)"
}
step_ncu() {
  # Stall reasons of the new forward at D = 64, 128, 256 (bf16, N = 4096, B = 4, not causal).
  timeout 90 ncu --section SpeedOfLight --section WarpStateStats --section Occupancy \
    --section SchedulerStats --section LaunchStats -k regex:forward_kernel -c 3 \
    python3 $S --lib $NEW --profile --fwd-only --profile-dims 64,128,256 > $LOGS/ncu.log 2>&1
  echo "ncu rc $?"
  grep -E "forward_kernel|Duration|Registers Per|Achieved Occupancy|Issued Warp|No Eligible|Warp Cycles Per Issued|Compute \(SM\)|Stall" \
    $LOGS/ncu.log | cut -c1-150 | head -45
}
for step in $STEPS; do echo "== $(date +%T) $step"; "step_$step"; done
