#!/bin/bash
# Twenty-eighth session, call 1: the head-dim sweep on main 4ddfad9 (the landed tree of the
# twenty-seventh session; the last head-dim sweep was the twenty-fourth session's). fwd and
# fwd+bwd, aligned and packed odd dims, fp16, B = 16, H = 16, N = 2048, against PyTorch's flash
# and cuDNN (FLOPs counted with the real D), for issue #5's "odd head dims >= 0.9x the next
# multiple of 64". D = 96 is FA2's own native width.
source scripts/gpu-env.sh 2>/dev/null
dims=72,80,96,105,121,128,129,161,192,200,234,256
timeout 590 scripts/gpu-check --families "sm80;sm90" --dtypes "fp16" --bundle --no-tests \
  --no-sanitizers \
  --bench-args "--sections ceilings,head-dim --sweep-modes fwd,fwd+bwd --sweep-head-dims $dims --fattn-backends auto,cuda_sm80" \
  2>&1 | tail -30
