#!/bin/bash
# s25 call 10: the integrated check on main after the session's changes (Hopper v36 one-pair
# groups for partial-box causal launches, sm80 forward v26 at 192, sm80 backward v49 / dQ classes
# at 256): build sm80 + sm90 (fp16, bf16), every GPU test, memcheck / racecheck per family.
source scripts/gpu-env.sh 2>/dev/null
timeout 590 scripts/gpu-check --families "sm80;sm90" --dtypes "fp16;bf16" --bundle --no-bench \
  2>&1 | tail -16
