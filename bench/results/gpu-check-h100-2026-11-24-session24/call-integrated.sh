#!/bin/bash
# s24 integrated run: build sm80 + sm90 (fp16, bf16), every GPU test, memcheck / racecheck per
# family. The Python tests and the head-dim sweep are the next call (one call cannot hold both).
source scripts/gpu-env.sh 2>/dev/null
timeout 590 scripts/gpu-check --families "sm80;sm90" --dtypes "fp16;bf16" --bundle --no-bench \
  2>&1 | tail -30
