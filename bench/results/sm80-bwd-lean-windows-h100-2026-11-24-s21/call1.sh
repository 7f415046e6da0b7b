#!/bin/bash
# s21 call 1: the sm80 backward v38 candidate (shifted windows in the full-width kernel at every
# bucket, and 16-byte rows over zero-filled columns at 64 and 192 too) in turns beside main
# (163ba3e) and PyTorch's flash backward, then the sm80 GPU tests (the twentieth session's four
# FullWidthOverZeros cases included) and both sanitizers on the candidate tree.
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
sm80_old_new_call_start build-s21/c1/carry || exit 1
f="16,16,fp16"
points=""
# 128 / 256 buckets, packed (shifted windows: general -> full-width kernel)
for D in 74 76 89 90 121 201 196 217 236; do points+="$D,2048,0,$f;"; done
# 64 / 192 buckets: aligned (general -> full width over zeros) and packed (shifted)
for D in 40 48 56 136 144 160 176 33 41 49 129 130 145 161; do points+="$D,2048,0,$f;"; done
# causal, bf16, controls (aligned, unchanged kernels)
points+="74,2048,1,$f;201,2048,1,$f;136,2048,1,$f;48,2048,1,$f;129,2048,1,$f;"
points+="90,2048,0,16,16,bf16;72,2048,0,$f;64,2048,0,$f"
timeout 400 python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 3 \
  --json "$OUT/turns.json" --points "$points" 2>&1 | grep -v Warning | tee "$OUT/turns.txt"
sm80_gpu_check_wait
sm80_gpu_check_run 590 "${SM80_CHECKS[@]}"
