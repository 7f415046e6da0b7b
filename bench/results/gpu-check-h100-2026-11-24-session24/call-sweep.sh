#!/bin/bash
# s24 sweep call: the Python tests and the head-dim sweep (fwd and fwd+bwd, aligned and packed odd
# dims, fp16, B = 16, H = 16, N = 2048) against PyTorch's flash and cuDNN, on the tested kernels.
source scripts/gpu-env.sh 2>/dev/null
dims=72,80,105,121,128,129,161,192,200,234,256
timeout 590 scripts/gpu-check --families "sm80;sm90" --dtypes "fp16;bf16" --bundle --no-tests \
  --no-sanitizers \
  --bench-args "--sections head-dim --sweep-modes fwd,fwd+bwd --sweep-head-dims $dims --fattn-backends auto,cuda_sm80" \
  2>&1 | tail -30
