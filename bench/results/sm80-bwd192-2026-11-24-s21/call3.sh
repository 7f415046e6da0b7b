#!/bin/bash
# s21 call 3: the sm80 backward v39 / v39b (the lean full-width kernel at 192, over zeros from
# D = 129; bwd192 merged into main) in turns beside main before it (47e4b18) and PyTorch's flash
# backward, then the library's sm80 GPU tests and both sanitizers (Bucket192 cases included).
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
sm80_old_new_call_start build-s21/c3/carry || exit 1
f="16,16,fp16"
points=""
# fills (D = 177..192), over zeros (129..176, aligned), packed windows, controls
for D in 192 184 136 144 160 176 129 130 145 161 128 256; do points+="$D,2048,0,$f;"; done
points+="192,2048,1,$f;144,2048,1,$f;129,2048,1,$f;192,2048,0,16,16,bf16;136,8192,0,4,16,fp16"
timeout 330 python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 3 \
  --json "$OUT/turns.json" --points "$points" 2>&1 | grep -v Warning | tee "$OUT/turns.txt"
sm80_gpu_check_wait
sm80_gpu_check_run 590 "${SM80_CHECKS[@]}"
