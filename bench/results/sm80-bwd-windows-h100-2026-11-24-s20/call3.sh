#!/bin/bash
# h20-bwd-windows, calls 3 and 4 (29de5a3: the phase-A fragment masks and the word postprocess;
# 7f3004f: the windows copied up to the rows' ends, the first k-step masked): in turns beside
# main (1682e3f) and PyTorch's flash backward on packed odd head dims, each kernel's time from
# `fattn trace`, then the library's sm80 GPU tests and both sanitizers.
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
sm80_old_new_call_start build-s20/carry || exit 1
f="16,16,fp16"
points=""
for D in 129 130 132 74 76 73 65 89 196 201 193 121 33 72 136; do points+="$D,2048,0,$f;"; done
points+="129,2048,1,$f;74,2048,1,$f;129,2048,0,16,16,bf16"
timeout 330 python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 3 \
  --json "$OUT/turns.json" --points "$points" 2>&1 | grep -v Warning | tee "$OUT/turns.txt"
sm80_gpu_check_wait
for D in 129 136 74 80; do
  build-gpu-check/tools/cli/fattn trace --device cuda --dtype fp16 --batch 16 --heads 16 \
    --seqlen 2048 --head-dim $D --direction bwd --backend cuda_sm80 --output /tmp/trace.json \
    --json 2>&1 | grep -o '"by_name".*' | sed "s/^/D=$D /"
done
sm80_gpu_check_run 575 "${SM80_CHECKS[@]}"
