#!/bin/bash
# h20-fwd-align, call 2: the window computed on the host (ForwardParams::window) instead of from
# `alignment` in the kernel, against main (1682e3f): the shifted controls (D = 73, 78, 89, 129,
# 135, 2-byte rows) read 0.985-0.99 of main in call 1. Then the sm80 forward tests (no
# sanitizers: call 1 ran them on the same logic).
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
sm80_unpack_old_new build-s20/fwdcarry2 || exit 1
checks=(--families sm80 --dtypes "fp16;bf16" --no-bench --no-sanitizers)
sm80_gpu_check_start "${checks[@]}"
f="16,16,fp16"
points=""
for D in 89 129 73 78 135 90 138 74 72 136; do points+="$D,2048,0,$f;"; done
points+="129,2048,0,16,16,bf16"
timeout 200 python3 bench/sm80_fwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 5 \
  --json "$OUT/turns.json" --points "$points" 2>&1 | grep -v Warning | tee "$OUT/turns.txt"
sm80_gpu_check_wait
sm80_gpu_check_run 575 "${checks[@]}" --filter '*Sm80Forward*:*Sm80Misaligned*:*cuda_sm80*'
