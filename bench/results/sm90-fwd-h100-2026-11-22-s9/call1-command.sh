#!/bin/bash
# The ninth session's first device call (NOTES.md, "v15"): the scores-ahead shims (sa: one Q
# buffer, sa2: two) checked against the fp32 reference and timed in turns beside the committed
# kernel (cur) and cuDNN at D = 128 and 64, N = 512..4096, causal and not, twice in opposite
# orders. Shims: bench/sm90_build.sh (cur) and the d128 TUs of a patched tree (scores_ahead on at
# D = 128; q_buffers 1 or 2) linked with cur's other objects, so the D = 64 points run cur's
# kernels in all three shims (the control of the turns: the D = 64 variant spilled, NOTES.md);
# xz-packed into build-h9c/<variant>/ and carried with .deps.
#   bash bench/results/sm90-fwd-h100-2026-11-22-s9/call1-command.sh   (on the GPU machine)
set -o pipefail
find build-h9c -name '*.xz' | xargs -r unxz
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
ls /usr/include/gtest /usr/lib/x86_64-linux-gnu/cmake/GTest > $OUT/gtest-probe.txt 2>&1
S=bench/sm90_vs_cudnn.py; B=build-h9c
timeout 80 python3 $S --lib sa2=$B/sa2/libsm90shim.so --lib sa=$B/sa/libsm90shim.so --check > $OUT/check.log 2>&1
echo "check rc $? $(grep -E '^check:' $OUT/check.log | paste -sd' ')"; grep FAIL $OUT/check.log | head -5
run_bench() {
  timeout 150 python3 $S $2 --bench --dims 128,64 --seqlens 512,1024,2048,4096 --no-flash --rounds 12 --json $OUT/$1.json > $OUT/$1.log 2>&1
  echo "$1 rc $?"; grep -E "^D=" $OUT/$1.log | sed -E 's/flash +nan +//'
}
run_bench bench1 "--lib sa2=$B/sa2/libsm90shim.so --lib sa=$B/sa/libsm90shim.so --lib cur=$B/cur/libsm90shim.so"
run_bench bench2 "--lib cur=$B/cur/libsm90shim.so --lib sa=$B/sa/libsm90shim.so --lib sa2=$B/sa2/libsm90shim.so"
