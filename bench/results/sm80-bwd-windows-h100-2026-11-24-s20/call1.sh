#!/bin/bash
# h20-bwd-windows, call 1: the sm80 backward with shifted windows (v36, bb8e3f9) in turns beside
# main (1682e3f) and PyTorch's flash backward on packed odd head dims, then the library's sm80 GPU
# tests and both sanitizers (built in the background while the turns run).
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
sm80_old_new_call_start build-s20/carry || exit 1
f="16,16,fp16"
points=""
for D in 129 130 132 74 76 73 65 89 196 201 193 121 33 72 80 136 200; do points+="$D,2048,0,$f;"; done
points+="129,2048,1,$f;74,2048,1,$f;129,2048,0,16,16,bf16"
timeout 330 python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 3 \
  --json "$OUT/turns.json" --points "$points" 2>&1 | grep -v Warning | tee "$OUT/turns.txt"
sm80_gpu_check_wait
sm80_gpu_check_run 575 "${SM80_CHECKS[@]}"
