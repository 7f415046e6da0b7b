#!/bin/bash
# h20-bwd-fwz: the sm80 backward's full-width (lean) kernel over zero-filled columns for head
# dims short of the 128 and 256 buckets (candidate thresholds: 5 and 13 k-steps), in turns
# beside the general kernel (HEAD) and PyTorch's flash backward, then the sm80 GPU tests and both
# sanitizers on the candidate tree.
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
sm80_old_new_call_start build-s20/fwzcarry || exit 1
f="16,16,fp16"
points=""
for D in 72 80 96 104 112 200 216 232 240; do points+="$D,2048,0,$f;"; done
points+="96,2048,1,$f;200,2048,1,$f;112,2048,0,16,16,bf16"
timeout 240 python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 3 \
  --json "$OUT/turns.json" --points "$points" 2>&1 | grep -v Warning | tee "$OUT/turns.txt"
sm80_gpu_check_wait
sm80_gpu_check_run 575 "${SM80_CHECKS[@]}"
