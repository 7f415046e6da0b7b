#!/bin/bash
# s24 last call: the final tree after dropping v47c (class 7): the 128 bucket's sm80 backward
# tests (step classes, D = 104 / 112 guards, deterministic) and both sanitizers.
source scripts/gpu-env.sh 2>/dev/null
timeout 560 scripts/gpu-check --families sm80 --dtypes "fp16;bf16" --head-dims "64;128" --no-bench \
  --filter '*Sm80Backward*:*cuda_sm80*' --bundle 2>&1 | tail -12
