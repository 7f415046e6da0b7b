#!/bin/bash
# s21 call 6: the heads-as-columns O stores by 4-byte pairs where V's phase is even (new) in turns
# beside main before them (ac5ec29), cuDNN and PyTorch's flash on packed odd head dims (fp16,
# B = 16, H = 16, N = 2048; every point's outputs compared bit for bit with the old kernels'),
# then the library's sm90 GPU tests and both sanitizers (the tail cases included).
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
checks=(--families sm90 --dtypes "fp16;bf16" --no-bench)
mkdir -p /tmp/oldtree && tar xzf build-s21/c6/old-tree.tar.gz -C /tmp/oldtree
( SM90_SOURCE_ROOT=/tmp/oldtree bench/sm90_build.sh /tmp/sh-old 8 > "$OUT/shim-old.log" 2>&1 ) &
( bench/sm90_build.sh /tmp/sh-new 8 > "$OUT/shim-new.log" 2>&1 ) &
wait
tail -n 2 "$OUT/shim-old.log" "$OUT/shim-new.log"
grep -h 'bytes spill' /tmp/sh-new/ptxas.log | grep -vc ' 0 bytes spill stores, 0 bytes spill loads'
sm80_gpu_check_start "${checks[@]}"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
libs=(--lib new=/tmp/sh-new/libsm90shim.so --lib old=/tmp/sh-old/libsm90shim.so)
dims=74,76,80,90,92,129,130,144,150,201,234,236
timeout 200 python3 bench/sm90_vs_cudnn.py "${libs[@]}" --bench --dims $dims --seqlens 2048 \
  --dtype fp16 --shape 16,16 --causal 0,1 --rounds 8 --same-outputs --json "$OUT/fp16.json" \
  2>&1 | grep -v Warning | tee "$OUT/fp16.txt" | grep -v "^|"
timeout 60 python3 bench/sm90_vs_cudnn.py "${libs[@]}" --bench --dims 74,80,130,236 \
  --seqlens 2048 --dtype bf16 --shape 16,16 --causal 0 --rounds 8 --same-outputs \
  --json "$OUT/bf16.json" 2>&1 | grep -v Warning | tee "$OUT/bf16.txt" | grep -v "^|"
sm80_gpu_check_wait
sm80_gpu_check_run 590 "${checks[@]}"
