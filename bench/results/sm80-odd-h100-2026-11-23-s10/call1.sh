#!/bin/bash
# Tenth session (h10-odd80), device call 1 (H100): the odd head dims' narrow-tile variants
# (bench/sm80_odd_variants.cu, bf16: 20 = 96 keys for class 5, 22 = 8 warps x 128 keys at 128,
# 24 = 20 + 22, 25 / 26 = 128 keys / 64 rows at 192, 27 / 28 = the same at 256) timed in turns
# beside the table and PyTorch's flash, the multiples of 64 in the same invocation (a variant
# that does not touch a bucket runs the table there); the table alone in fp16 (the issue's
# point); controls: causal, N = 512 / 8k (B·N = 16384, H·D = 2048).
#   LIB=<shim> OUT=<dir> bash bench/results/sm80-odd-h100-2026-11-23-s10/call1.sh
set -o pipefail
export PYTHONUNBUFFERED=1
S=bench/sm80_vs_torch.py
L=${LIB:?shim}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
ls -d /usr/include/gtest /usr/lib/x86_64-linux-gnu/cmake/GTest 2>&1 | head -2
turns() {  # name, points, variants, timeout
  timeout "$4" python3 $S --lib $L --turns "$2" ${3:+--turn-variants $3} --json $OUT/turns-$1.json \
    > $OUT/turns-$1.log 2>&1
  echo "== $1 rc $?"; grep -E "^D=|Error|error" $OUT/turns-$1.log | sed -E 's/; window-nothing[^;]*//'
}
points() {  # dtype, dims, N, causal, ",B,H" (default 16, 16; "" = B·N = 16384, H·D = 2048)
  local out=""
  for D in $2; do out+="$D,$3,$4,$1${5-,16,16};"; done
  echo "${out%;}"
}
turns bf16 "$(points bf16 '72 80 96 128 136 192 200 256 64' 2048 0)" 20,22,24,25,26,27,28 110
turns fp16 "$(points fp16 '72 80 96 128 136 192 200 256 64' 2048 0)" "" 50
turns controls "$(points bf16 '72 96 136 200' 2048 1);$(points bf16 '72 96' 512 0 '');$(points bf16 '72 96' 8192 0 '')" 20,22,24,25,27 110
