#!/bin/bash
# Twenty-eighth session, call 6: the sm80 half of the issue sweep on the landed tree (cuda_sm80
# and its deterministic mode against FA2, fwd and fwd+bwd, bf16, B·N = 16k, H·D = 2048, D = 64 /
# 128 / 256, N = 512 .. 16k; the Hopper forward's sweep kernels did not change this session),
# then gpu-check's sm80 sanitizer set again (call 5's racecheck was cut by that call's limit).
source scripts/gpu-env.sh 2>/dev/null
mkdir -p $OUT/sweep
OUT=$OUT/sweep timeout 400 scripts/gpu-check --families sm80 --dtypes "fp16;bf16" --bundle --no-tests \
  --no-sanitizers \
  --bench-args "--sections ceilings,sweep --seqlens 512,1024,2048,4096,8192,16384 --fattn-backends cuda_sm80,cuda_sm80+deterministic --sdpa-backends flash" \
  2>&1 | tail -6
echo "== $(date +%T) (at $SECONDS s) sanitizer set"
mkdir -p $OUT/gc
OUT=$OUT/gc timeout $((590 - SECONDS)) scripts/gpu-check --families sm80 --dtypes "fp16;bf16" --no-tests --no-bench --bundle 2>&1 | tail -8
