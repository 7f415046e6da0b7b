#!/bin/bash
# s22 call 5: which heads-as-columns launches gain from the staged O stores? Call 1 measured gains
# at packed D = 129 / 201 (2-byte rows, work widths 136 / 208) and losses at 74 / 76 / 90 / 234
# (4- and 8-byte rows, widths 80 / 80 / 96 / 240). Here 2-byte rows at widths 80 / 96 / 240
# (D = 73 / 89 / 233) and 4-byte rows at widths 136 / 208 (D = 130 / 202) tell the row alignment
# from the width. Old = 5babd6a (register pair stores), new = the working tree.
source scripts/gpu-env.sh 2>/dev/null
source bench/sm90_call_steps.sh
sm90_old_new_shims build-s22-ostage/old-tree.tar.gz
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
libs=("${SM90_OLD_NEW_LIBS[@]}")
timeout 240 python3 bench/sm90_vs_cudnn.py "${libs[@]}" --bench --dims 73,89,233,130,202,74,201 \
  --seqlens 2048 --dtype fp16 --shape 16,16 --causal 0,1 --rounds 8 --same-outputs \
  --json "$OUT/fp16.json" 2>&1 | grep -v Warning | tee "$OUT/fp16.txt" | grep -v "^|"
