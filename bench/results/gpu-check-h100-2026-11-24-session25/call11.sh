#!/bin/bash
# s25 call 11, on the trial tree (main + s25-fwd192c: the masked D = 145..192 sm80 forward on
# 128-key tiles): (1) the candidate in turns beside main and FA2 (and variant E, exact rescale
# without KeyCopiesUnderPv, against it); (2) the GPU tests and both sanitizers of what changed
# since call 10: the sm80 forward's 192 tables and the Hopper one-pair-group cases.
source scripts/gpu-env.sh 2>/dev/null
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
F='*Sm90Forward*33_tiles*:*Sm90Forward*sector*:*MaskedTable192*:*UnmaskedTable192*:*RescalePastThreshold*:*Sm80ForwardShapes*:*cuda_sm80*192*'
mkdir -p "$OUT/gc"
( OUT=$OUT/gc nice -n 19 scripts/gpu-check --families "sm80;sm90" --dtypes "fp16;bf16" --no-bench \
    --filter "$F" --no-tests --no-sanitizers --jobs 14 > "$OUT/gc-build.txt" 2>&1 ) &
GC=$!
for v in old new e; do xz -dc build-s25-c192/$v.so.xz > /tmp/$v.so; done
timeout 150 python3 bench/sm80_fwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 3 \
  --points '192,2048,1,16,16,fp16;192,4096,1,4,16,bf16;192,1024,1,16,16,bf16;160,2048,1,16,16,fp16;192,2048,0,16,16,fp16;153,2048,0,16,16,fp16' \
  2>&1 | grep -v Warning > $OUT/turns_c192.txt; grep "^D=" $OUT/turns_c192.txt | cut -c1-220
timeout 80 python3 bench/sm80_fwd_turns.py --old /tmp/e.so --new /tmp/new.so --runs 2 \
  --points '192,2048,1,16,16,fp16;192,4096,1,4,16,bf16;192,1024,1,16,16,bf16' \
  2>&1 | grep -v Warning > $OUT/turns_c192_e.txt; grep "^D=" $OUT/turns_c192_e.txt | cut -c1-220
wait $GC; tail -2 "$OUT/gc-build.txt"
OUT=$OUT/gc timeout $((590 - SECONDS)) scripts/gpu-check --families "sm80;sm90" --dtypes "fp16;bf16" \
  --no-bench --filter "$F" --bundle 2>&1 | tail -9
echo "== done at $SECONDS s"
