#!/bin/bash
# Ninth session, second round (h9-fwd80b), device call 1 (H100): the head-group size chosen at
# launch (tile_config.hpp, HeadGroupSize; shim variants 11 fill_half, 12 fill_once, 13 l2_half)
# timed in turns beside the v7 table (fixed groups of 8 / 8 / 4) and PyTorch's flash at the 12
# causal points of B·N = 16384, H·D = 2048 and one non-causal null point; HalfLastStep in the
# 2-byte-row kernel at 192 (variant 14) at D = 129 beside the table (packed bf16, B = 16, N = 2048,
# H = 15 and 16: the head stride of 129 elements leaves the rows 2-byte aligned either way);
# before that, variants 11-13 on --small (whole and partial tiles, the buckets they exist at;
# as run in call 1 without --check-dims the first 192 case stopped each: "no such variant").
#   LIB=<shim> OUT=<dir> bash bench/results/sm80-fwd-h100-2026-11-22-s9b/call1.sh
set -o pipefail
export PYTHONUNBUFFERED=1
S=bench/sm80_vs_torch.py
L=${LIB:?shim}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
for v in 11 12 13; do
  timeout 40 python3 $S --lib $L --small --fwd-only --forward-variant $v \
    --check-dims 64,72,96,100,112,128,200,256 > $OUT/small-v$v.log 2>&1
  echo "small v$v rc $?: $(grep 'check:' $OUT/small-v$v.log)"; grep FAIL $OUT/small-v$v.log | head -3
done
causal=""
for D in 64 128 256; do for N in 1024 4096 8192 16384; do causal+="$D,$N,1;"; done; done
timeout 170 python3 $S --lib $L --turns "${causal}128,16384,0" --turn-variants 11,12,13 \
  --json $OUT/turns-groups.json > $OUT/turns-groups.log 2>&1
echo "groups rc $?"; grep -E "^D=" $OUT/turns-groups.log | sed -E 's/; spread/\n    spread/'
timeout 40 python3 $S --lib $L --turns "129,2048,0,bf16,16,15;129,2048,1,bf16,16,15;129,2048,0,bf16,16,16" \
  --turn-variants 14 --json $OUT/turns-129.json > $OUT/turns-129.log 2>&1
echo "129 rc $?"; grep -E "^D=" $OUT/turns-129.log | sed -E 's/; window-nothing.*; spread/; spread/'
