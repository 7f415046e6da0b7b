#!/bin/bash
# Twenty-sixth session, call 6: the issue sweep of #5 and #6 on main after v37 (Hopper groups) and
# v50 (the deterministic sm80 backward's hand-over): bf16, B·N = 16k, H·D = 2048, D = 64 / 128 /
# 256, N = 512 .. 16k, causal and not, fwd and fwd+bwd; fattn auto (Hopper forward), cuda_sm80 and
# its deterministic mode against PyTorch's flash (FA2) and cuDNN, plus the GEMM / copy ceilings.
source scripts/gpu-env.sh 2>/dev/null
timeout 590 scripts/gpu-check --families "sm80;sm90" --dtypes "fp16;bf16" --bundle --no-tests \
  --no-sanitizers \
  --bench-args "--sections ceilings,sweep --seqlens 512,1024,2048,4096,8192,16384 --fattn-backends auto,cuda_sm80,cuda_sm80+deterministic --sdpa-backends flash,cudnn" \
  2>&1 | tail -30
