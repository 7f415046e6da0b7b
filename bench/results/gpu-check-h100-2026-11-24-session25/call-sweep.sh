#!/bin/bash
# s25 call 1: the issue sweep of #5 and #6 on the kernels as they stand (main 221b474): bf16,
# B·N = 16k, H·D = 2048, D = 64 / 128 / 256, N = 512 .. 16k, causal and not, fwd and fwd+bwd;
# fattn auto (Hopper forward), cuda_sm80 and its deterministic mode against PyTorch's flash (FA2)
# and cuDNN, plus the GEMM / copy ceilings. The last full sweep of these points was the
# eighteenth session's; the sm80 backward and the Hopper staging changed since.
source scripts/gpu-env.sh 2>/dev/null
timeout 590 scripts/gpu-check --families "sm80;sm90" --dtypes "fp16;bf16" --bundle --no-tests \
  --no-sanitizers \
  --bench-args "--sections ceilings,sweep --seqlens 512,1024,2048,4096,8192,16384 --fattn-backends auto,cuda_sm80,cuda_sm80+deterministic --sdpa-backends flash,cudnn" \
  2>&1 | tail -30
