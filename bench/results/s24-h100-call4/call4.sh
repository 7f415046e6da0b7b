#!/bin/bash
# Twenty-fourth session, call 4: the new `scripts/gpu-check --pruned` on main (v44 / v44d, the
# Hopper staged O v2): a build with only the 256 bucket (sm80 and sm90, fp16 and bf16) runs the
# odd-head-dim tests, so every head dim reaches the 256 bucket's kernels. The main build is
# pruned to the 64 bucket and runs nothing, to keep the call short.
source scripts/gpu-env.sh 2>/dev/null
timeout 590 scripts/gpu-check --families "sm80;sm90" --dtypes "fp16;bf16" --head-dims 64 \
  --no-tests --no-sanitizers --no-bench --pruned 256 --bundle 2>&1 | tail -12
