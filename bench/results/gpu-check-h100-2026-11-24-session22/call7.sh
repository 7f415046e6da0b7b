#!/bin/bash
# s22 call 7: the integrated run on the session's final kernels (sm80 backward v40-v42 and the
# 192 windows on the full-width kernel, the Hopper staged O at widths 144..208): build sm80 +
# sm90 (fp16, bf16), every GPU test, memcheck / racecheck per family, the Python tests, then the
# head-dim sweep (fwd and fwd+bwd, packed odd and aligned dims) against PyTorch's flash and cuDNN.
source scripts/gpu-env.sh 2>/dev/null
dims=74,80,129,136,144,161,176,192,201
timeout 585 scripts/gpu-check --families "sm80;sm90" --dtypes "fp16;bf16" --bundle \
  --bench-args "--sections head-dim --sweep-modes fwd,fwd+bwd --sweep-head-dims $dims --fattn-backends auto,cuda_sm80" \
  2>&1 | tail -30
