#!/bin/bash
# s22 call: the heads-as-columns O stores through shared memory (new: each warp stages its rows in
# the O tile and stores whole 16-byte words of each output row, 8/4/2-byte pieces at its ragged
# ends; src/cuda/sm90/output_staging.cuh) in turns beside main before them (5babd6a: 4-byte pair
# register stores), cuDNN and PyTorch's flash on packed odd head dims (B = 16, H = 16, N = 2048;
# every point's outputs compared bit for bit with the old kernels'), then the library's sm90 GPU
# tests (the StagedOutput cases included) and both sanitizers (the gpu-check sm90 filter has
# four StagedOutput cases: the O tile's own buffer, the V ring with fully masked tiles, the 256
# bucket, GQA).
# Prepare on the desk machine, in the tree that runs it (the old tree, carried):
#   mkdir -p build-s22-ostage && git archive 5babd6a src include | gzip > build-s22-ostage/old-tree.tar.gz
# Run:
#   run(command="bash bench/results/sm90-hac-ostage-2026-11-24-s22/call.sh",
#       carry=["build-s22-ostage", ".deps"], timeout_s=600)
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
source bench/sm90_call_steps.sh
checks=(--families sm90 --dtypes "fp16;bf16" --no-bench)
sm90_old_new_shims build-s22-ostage/old-tree.tar.gz
sm80_gpu_check_start "${checks[@]}"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
libs=("${SM90_OLD_NEW_LIBS[@]}")
# Packed odd dims of each row alignment and bucket: 74 / 90 / 234 (4-byte rows), 76 (8-byte),
# 129 / 201 (2-byte); 74 / 76 / 90 stage in the O tile's own buffer (128 bucket), 129 in the V
# ring (192), 201 / 234 in the V ring (256). Aligned controls (kernels unchanged, SASS
# identical): 80, 144, 208, 240.
dims=74,76,80,90,129,144,201,208,234,240
timeout 200 python3 bench/sm90_vs_cudnn.py "${libs[@]}" --bench --dims $dims --seqlens 2048 \
  --dtype fp16 --shape 16,16 --causal 0,1 --rounds 8 --same-outputs --json "$OUT/fp16.json" \
  2>&1 | grep -v Warning | tee "$OUT/fp16.txt" | grep -v "^|"
timeout 60 python3 bench/sm90_vs_cudnn.py "${libs[@]}" --bench --dims 74,80,129,201 \
  --seqlens 2048 --dtype bf16 --shape 16,16 --causal 0 --rounds 8 --same-outputs \
  --json "$OUT/bf16.json" 2>&1 | grep -v Warning | tee "$OUT/bf16.txt" | grep -v "^|"
sm80_gpu_check_wait
sm80_gpu_check_run 590 "${checks[@]}"
# At most 8 files come back from a call: the rest as one tar.
(cd "$OUT" && tar czf rest.tgz --remove-files $(ls | grep -v -e '^fp16.txt$' -e '^bf16.txt$' -e '^rest.tgz$'))
