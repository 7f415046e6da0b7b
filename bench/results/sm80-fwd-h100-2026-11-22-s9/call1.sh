#!/bin/bash
# Ninth session, h9-fwd80, device call 1 (H100): the forward's head-group order
# (QueryTilesSlowestInHeadGroups, shim variants 6/7/8 = groups of 2/4/8 pairs) and HalfLastStep
# (variant 9) timed in turns beside the table and PyTorch's flash (bench/sm80_vs_torch.py
# --turns), then checked (fp32 torch reference) and run under compute-sanitizer. The variant
# numbers are those of commit e004d72's bench/sm80_variants.cu (the first, (head, batch)-pair form
# of the order; variant 9 is gone since HalfLastStep went into the table).
#   LIB=<shim> OUT=<dir> bash bench/results/sm80-fwd-h100-2026-11-22-s9/call1.sh
set -o pipefail
export PYTHONUNBUFFERED=1
S=bench/sm80_vs_torch.py
L=${LIB:?shim}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
causal=""
for D in 64 128 256; do for N in 1024 4096 8192 16384; do causal+="$D,$N,1;"; done; done
timeout 150 python3 $S --lib $L --turns "${causal}64,4096,0;128,4096,0;256,4096,0" \
  --turn-variants 6,7,8 --json $OUT/turns-groups.json > $OUT/turns-groups.log 2>&1
echo "groups rc $?"; grep -E "^D=" $OUT/turns-groups.log | sed -E 's/; spread/\n    spread/'
odd=""
for D in 72 128 136 192 200 256; do odd+="$D,2048,0,bf16,16,16;"; done
timeout 60 python3 $S --lib $L --turns "${odd%;}" --turn-variants 9 \
  --json $OUT/turns-odd.json > $OUT/turns-odd.log 2>&1
echo "odd rc $?"; grep -E "^D=" $OUT/turns-odd.log | sed -E 's/window-nothing.*;/;/'
for v in 7 8; do
  timeout 40 python3 $S --lib $L --check --fwd-only --forward-variant $v --check-dims 64,128,256 \
    > $OUT/check-v$v.log 2>&1
  echo "check v$v rc $?: $(grep 'check:' $OUT/check-v$v.log)"; grep FAIL $OUT/check-v$v.log | head -3
done
timeout 40 python3 $S --lib $L --check --fwd-only --forward-variant 9 \
  --check-dims 65,72,80,96,100,112,128,129,136,192,200,255,256 > $OUT/check-v9.log 2>&1
echo "check v9 rc $?: $(grep 'check:' $OUT/check-v9.log)"; grep FAIL $OUT/check-v9.log | head -3
for tool in memcheck racecheck; do
  timeout 70 compute-sanitizer --tool $tool python3 $S --lib $L --small --fwd-only \
    --forward-variant 7 --check-dims 64,128,256 > $OUT/$tool-v7.log 2>&1
  echo "$tool v7 rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/$tool-v7.log | tail -1)" \
    "$(grep 'check:' $OUT/$tool-v7.log)"
  timeout 50 compute-sanitizer --tool $tool python3 $S --lib $L --small --fwd-only \
    --forward-variant 9 --check-dims 128,129,192,200,256 > $OUT/$tool-v9.log 2>&1
  echo "$tool v9 rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/$tool-v9.log | tail -1)" \
    "$(grep 'check:' $OUT/$tool-v9.log)"
done
