#!/bin/bash
# Twenty-ninth session, call 5: the tree as it lands (call 1 plus the small backward table's lean full-width kernels,
# small table at 64 / 128 / 192, simt A100- and sm_86-sized tiles) and the selector's knowledge
# of them: scripts/gpu-check for simt and sm80 (build, every GPU test including the capped ones,
# the sanitizer set with capped cases added), no bench.
source scripts/gpu-env.sh 2>/dev/null
mkdir -p $OUT/gc
OUT=$OUT/gc timeout 575 scripts/gpu-check --families "simt;sm80" --no-bench --bundle 2>&1 | tail -14
T=build-gpu-check/tests/cuda/fattn_cuda_tests
grep -hE "^\[  FAILED  \]" $OUT/gc/*.log 2>/dev/null | sort -u | head -30
