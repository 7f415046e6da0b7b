#!/bin/bash
# Twenty-eighth session, call 7: the landed tree's Hopper family (the width-224 window kernels of
# v39 and the shared-memory check before every launch): scripts/gpu-check --families sm90 (build,
# GPU tests, its memcheck / racecheck set, Python tests), then its bench: the Hopper forward
# against cuDNN at the sweep's N = 512 points (bf16, B·N = 16k, H·D = 2048), where a launch's
# host work would show first.
source scripts/gpu-env.sh 2>/dev/null
timeout 585 scripts/gpu-check --families sm90 --dtypes "fp16;bf16" --bundle \
  --bench-args "--sections sweep --seqlens 512 --fattn-backends auto --sdpa-backends cudnn" 2>&1 | tail -14
