#!/bin/bash
# s23 call 5: the integrated run on the session's final kernels (sm80 backward v43, sm80 forward
# v22-v24): build sm80 + sm90 (fp16, bf16), every GPU test, memcheck / racecheck per family, the
# Python tests. The head-dim sweep is call 6 (one call cannot hold both).
source scripts/gpu-env.sh 2>/dev/null
timeout 590 scripts/gpu-check --families "sm80;sm90" --dtypes "fp16;bf16" --bundle --no-bench \
  2>&1 | tail -30
