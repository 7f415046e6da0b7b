#!/bin/bash
# s23 call 6: the Python tests and the head-dim sweep (fwd and fwd+bwd, packed odd and aligned
# dims, fp16, B = 16, H = 16, N = 2048) against PyTorch's flash and cuDNN, on the kernels call 5
# tested.
source scripts/gpu-env.sh 2>/dev/null
dims=80,105,121,128,129,161,192,200,256
timeout 590 scripts/gpu-check --families "sm80;sm90" --dtypes "fp16;bf16" --bundle --no-tests \
  --no-sanitizers \
  --bench-args "--sections head-dim --sweep-modes fwd,fwd+bwd --sweep-head-dims $dims --fattn-backends auto,cuda_sm80" \
  2>&1 | tail -30
