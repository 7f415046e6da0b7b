#!/bin/bash
# s22 call 9: the library's sm80 GPU tests and both sanitizers on the final tree (ScoreStatisticsAhead
# in the Large 192 table, untested on a GPU before; the forward's wide windows).
source scripts/gpu-env.sh 2>/dev/null
timeout 560 scripts/gpu-check --families sm80 --dtypes "fp16;bf16" --no-bench --jobs 16 2>&1 | tail -12
