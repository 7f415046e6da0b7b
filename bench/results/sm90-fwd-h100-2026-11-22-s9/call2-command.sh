#!/bin/bash
# The ninth session's second device call (NOTES.md, "v15", call 2): where the scores-ahead gain
# went. Shims (D = 128 bf16 TU of a patched tree linked with cur's other objects, so fp16 and
# the other buckets run cur's kernels): sa2 (call 1's), sa2w (sa2 with the next tile's scores
# waited for before the epilogue instead of after it: the overlap of Q·Kᵀ and epilogue removed,
# all else equal), sau (the working tree's form: the next tile decoded at the top of the
# current one and carried). Timed in turns beside cur and cuDNN, twice in opposite orders.
#   bash bench/results/sm90-fwd-h100-2026-11-22-s9/call2-command.sh   (on the GPU machine)
set -o pipefail
find build-h9c -name '*.xz' | xargs -r unxz
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
S=bench/sm90_vs_cudnn.py; B=build-h9c
timeout 80 python3 $S --lib sa2w=$B/sa2w/libsm90shim.so --lib sau=$B/sau/libsm90shim.so --check > $OUT/check.log 2>&1
echo "check rc $? $(grep -E '^check:' $OUT/check.log | paste -sd' ')"; grep FAIL $OUT/check.log | head -5
run_bench() {
  timeout 150 python3 $S $2 --bench --dims 128 --seqlens 512,1024,2048,4096 --no-flash --rounds 16 --json $OUT/$1.json > $OUT/$1.log 2>&1
  echo "$1 rc $?"; grep -E "^D=" $OUT/$1.log | sed -E 's/flash +nan +//'
}
run_bench bench1 "--lib sa2=$B/sa2/libsm90shim.so --lib sa2w=$B/sa2w/libsm90shim.so --lib sau=$B/sau/libsm90shim.so --lib cur=$B/cur/libsm90shim.so"
run_bench bench2 "--lib cur=$B/cur/libsm90shim.so --lib sau=$B/sau/libsm90shim.so --lib sa2w=$B/sa2w/libsm90shim.so --lib sa2=$B/sa2/libsm90shim.so"
