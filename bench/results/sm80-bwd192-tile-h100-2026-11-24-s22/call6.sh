#!/bin/bash
# s22 call 6: the 192 bucket's packed odd dims (shifted windows) on the full-width kernel, now
# that it has the line reductions (Large table) — new = main + shifted_windows_over_zeros(192) —
# in turns beside main (the general kernel) and FA2's backward.
source scripts/gpu-env.sh 2>/dev/null
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
xz -dc build-s22w/carry/new.so.xz > /tmp/new.so && xz -dc build-s22w/carry/old.so.xz > /tmp/old.so || exit 1
f="16,16,fp16"
timeout 150 python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 3 \
  --points "129,2048,0,$f;130,2048,0,$f;145,2048,0,$f;161,2048,0,$f;185,2048,0,$f;129,2048,1,$f;161,2048,1,$f;192,2048,0,$f" \
  2>&1 | grep -v Warning | tee "$OUT/turns_w.txt"
