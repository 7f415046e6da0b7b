#!/bin/bash
# h20-fwd-align, call 1: the sm80 forward's shifted windows sized by the tensors' alignment, in
# turns beside main (1682e3f) and PyTorch's flash (packed tensors), then the sm80 GPU tests and
# both sanitizers (built in the background while the turns run).
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
sm80_old_new_call_start build-s20/fwdcarry || exit 1
f="16,16,fp16"
points=""
for D in 90 92 138 140 202 204 74 76 78 89 129 72 136; do points+="$D,2048,0,$f;"; done
points+="90,2048,1,$f;202,2048,0,16,16,bf16"
timeout 200 python3 bench/sm80_fwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 3 \
  --json "$OUT/turns.json" --points "$points" 2>&1 | grep -v Warning | tee "$OUT/turns.txt"
sm80_gpu_check_wait
sm80_gpu_check_run 575 "${SM80_CHECKS[@]}"
