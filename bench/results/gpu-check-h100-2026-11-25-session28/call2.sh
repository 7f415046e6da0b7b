#!/bin/bash
# Twenty-eighth session, call 2: width 224's windowed kernels (D = 209..224 on 16-byte rows, the
# 256 bucket) with the branch-free per-score mask test; only the heads-as-columns kernels keep
# the branches (bench/results/sm90-s28-w224-prep/). 1) d256-bucket shims old (main 4ddfad9) /
# new in turns, outputs bit for bit (SDPA has no sliding window: no peer). 2) the 256 bucket's
# sm90 GPU tests (gpu-check, its sanitizer set), then memcheck / racecheck on the width-224
# window cases.
source scripts/gpu-env.sh 2>/dev/null
W=$(mktemp -d); tar -xJf build-s28w224/carry/shims.tar.xz -C $W; ls $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
S="python3 bench/sm90_vs_cudnn.py --bench --no-flash --dims 224,216 --seqlens 512,1024,2048,4096 --causal 0 --rounds 8"
timeout 130 $S --lib old=$W/cur.so --lib new=$W/w224.so --window=256,0 --same-outputs > $OUT/w256.txt 2>&1; echo "w256 rc $?"
timeout 130 $S --lib new=$W/w224.so --lib old=$W/cur.so --window=1024,64 --same-outputs > $OUT/w1024.txt 2>&1; echo "w1024 rc $?"
grep -E "^D=|same outputs|rror" $OUT/w256.txt $OUT/w1024.txt | cut -c1-220 | head -40
echo "== $(date +%T) (at $SECONDS s) tests"
mkdir -p $OUT/gc
OUT=$OUT/gc timeout 300 scripts/gpu-check --families sm90 --head-dims 256 --dtypes "fp16;bf16" --no-bench --bundle \
  --filter '*Sm90Forward*:*Sm90Unaligned*:*cuda_sm90*' 2>&1 | tail -8
T=build-gpu-check/tests/cuda/fattn_cuda_tests
F='*Sm90Forward*width224_d224_window*:*Sm90Forward*sector_d216_window*'
$T --gtest_list_tests --gtest_filter="$F" | grep -c "^  " | sed 's/^/width-224 window cases: /'
for tool in memcheck racecheck; do
  timeout $((590 - SECONDS)) compute-sanitizer --tool $tool --error-exitcode 1 $T --gtest_filter="$F" > $OUT/w224-$tool.log 2>&1
  echo "== w224 $tool rc $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $OUT/w224-$tool.log | tail -1) $(grep -cE '^\[       OK' $OUT/w224-$tool.log) ok"
done
