#!/bin/bash
# s21 call 7: the heads-as-columns O pair stores wherever the output row's element offset and V's
# phase share their parity (2-byte rows too; new) in turns beside 15f610f (even phases only),
# B = 16, H = 16, N = 2048; every point's outputs compared bit for bit with the old kernels'),
# then the library's sm90 GPU tests and both sanitizers (the tail cases included).
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
source bench/sm90_call_steps.sh
checks=(--families sm90 --dtypes "fp16;bf16" --no-bench)
sm90_old_new_shims build-s21/c7/old-tree.tar.gz
sm80_gpu_check_start "${checks[@]}"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
libs=("${SM90_OLD_NEW_LIBS[@]}")
dims=74,80,97,129,130,135,165,201,211,233
timeout 200 python3 bench/sm90_vs_cudnn.py "${libs[@]}" --bench --dims $dims --seqlens 2048 \
  --dtype fp16 --shape 16,16 --causal 0,1 --rounds 8 --same-outputs --json "$OUT/fp16.json" \
  2>&1 | grep -v Warning | tee "$OUT/fp16.txt" | grep -v "^|"
timeout 60 python3 bench/sm90_vs_cudnn.py "${libs[@]}" --bench --dims 80,129,201 \
  --seqlens 2048 --dtype bf16 --shape 16,16 --causal 0 --rounds 8 --same-outputs \
  --json "$OUT/bf16.json" 2>&1 | grep -v Warning | tee "$OUT/bf16.txt" | grep -v "^|"
sm80_gpu_check_wait
sm80_gpu_check_run 590 "${checks[@]}"
