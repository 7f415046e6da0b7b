#!/bin/bash
# Twenty-ninth session, call 5: the tree as it lands (call 1's plus the small backward table's
# lean full-width kernels with FillingHeadDimsOnly at 128 / 192, and simt's make_largest_fitting):
# scripts/gpu-check for simt and sm80 (build, every GPU test including the capped ones, the
# sanitizer set with capped cases), no bench.
source scripts/gpu-env.sh 2>/dev/null
mkdir -p $OUT/gc
OUT=$OUT/gc timeout 575 scripts/gpu-check --families "simt;sm80" --no-bench --bundle 2>&1 | tail -14
