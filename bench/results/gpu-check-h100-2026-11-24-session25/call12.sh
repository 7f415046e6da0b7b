#!/bin/bash
# s25 call 12, the final tree (main f625eee + this script): the GPU tests and both sanitizers of
# the sm80 forward (v26 / v27 at 192) and the Hopper one-pair-group cases, then the Python tests
# (with the ceilings section of the bench only). The rest of the GPU tests ran in call 10 on
# the tree before v27 (559 of 560, the one failure a test-design error fixed since).
source scripts/gpu-env.sh 2>/dev/null
F='*Sm80Forward*:*MaskedTable192*:*UnmaskedTable192*:*RescalePastThreshold*:*cuda_sm80*:*Sm80Misaligned*:*Sm90Forward*33_tiles*:*Sm90Forward*sector*'
timeout 590 scripts/gpu-check --families "sm80;sm90" --dtypes "fp16;bf16" --filter "$F" --bundle \
  --bench-args "--sections ceilings" 2>&1 | tail -14
