#!/usr/bin/env bash
# The CPU GFLOP/s table: flash vs standard (B=1 H=16 N=4096 D=128) and the fp64 reference (on a
# smaller problem: it runs at ~1 GFLOP/s), forward and backward, fp32 and bf16, 1 and 2 threads.
#   bench/cpu/run_table.sh [build-dir] [extra fattn_cpu_bench arguments]
set -euo pipefail
build="${1:-build}"
shift || true
bench="$build/bench/cpu/fattn_cpu_bench"
for threads in 1 2; do
  for dtype in fp32 bf16; do
    "$bench" --heads 16 --seqlen 4096 --head-dim 128 --dtype "$dtype" --threads "$threads" --repeats 3 \
      --backends flash,standard "$@"
    "$bench" --heads 2 --seqlen 512 --head-dim 128 --dtype "$dtype" --threads "$threads" --repeats 1 \
      --backends reference "$@"
  done
done
