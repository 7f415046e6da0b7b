#!/bin/bash
# s25 call 6, on the trial tree (main + s25-h136c + one-pair groups for every causal sector-box
# launch): (1) the sm80 D = 192 forward candidates A / B / C (desk work s25-fwd192) in turns
# beside main and FA2; (2) the Hopper sector-box causal launches, main against this tree, at the
# 128 / 192 / 256 buckets' sector widths and N = 512..16k; (3) the sm90 sector GPU tests.
source scripts/gpu-env.sh 2>/dev/null
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
(bench/sm90_build.sh /tmp/bnew 6 > $OUT/sm90-build.log 2>&1; tail -1 $OUT/sm90-build.log) &
SHIM=$!
mkdir -p "$OUT/gc"
( OUT=$OUT/gc nice -n 19 scripts/gpu-check --families sm90 --dtypes "fp16;bf16" --no-bench \
    --filter '*Sm90Forward*sector*:*Sm90Scheduler*' --no-tests --no-sanitizers --jobs 8 \
    > "$OUT/gc-build.txt" 2>&1 ) &
GC=$!
xz -dc build-s25-f192/old.so.xz > /tmp/old80.so
for v in c a b; do xz -dc build-s25-f192/new_$v.so.xz > /tmp/new_$v.so; done
xz -dc build-s25-h136c-old/old.so.xz > /tmp/old90.so
points='192,2048,0,16,16,fp16;192,2048,1,16,16,fp16;192,4096,0,4,16,bf16;192,512,0,32,16,bf16;160,2048,0,16,16,fp16;184,2048,0,16,16,fp16;136,2048,0,16,16,fp16'
for v in c a b; do
  timeout 120 python3 bench/sm80_fwd_turns.py --old /tmp/old80.so --new /tmp/new_$v.so --runs 3 \
    --points "$points" 2>&1 | grep -v Warning > "$OUT/turns192_$v.txt"
  echo "== $(date +%T) (at $SECONDS s) candidate $v"; grep -E "^D=" "$OUT/turns192_$v.txt" | cut -c1-200
done
wait $SHIM
echo "sm90 shim spills: $(grep -cE '[1-9][0-9]* bytes spill' /tmp/bnew/ptxas.log)"
L=(--lib old=/tmp/old90.so --lib new=/tmp/bnew/libsm90shim.so)
timeout 150 python3 bench/sm90_vs_cudnn.py "${L[@]}" --bench --same-outputs --no-flash --rounds 10 \
  --layout bshd --shape 4,16 --dtype fp16 \
  --points '104,16384,1;216,16384,1;136,16384,1;104,4096,1;216,4096,1;152,8192,1;104,16384,0' \
  --json "$OUT/sector4.json" 2>&1 | grep -v -e Warning -e "cudnn failed" -e "F.scaled" | tail -10
timeout 100 python3 bench/sm90_vs_cudnn.py "${L[@]}" --bench --same-outputs --no-flash --rounds 10 \
  --layout bshd --shape 16,16 --dtype bf16 \
  --points '136,2048,1;136,1024,1;136,512,1;72,2048,1;200,2048,1;144,4096,1' \
  --json "$OUT/sector16.json" 2>&1 | grep -v -e Warning -e "cudnn failed" -e "F.scaled" | tail -9
wait $GC; tail -2 "$OUT/gc-build.txt"
OUT=$OUT/gc timeout $((590 - SECONDS)) scripts/gpu-check --families sm90 --dtypes "fp16;bf16" --no-bench \
  --filter '*Sm90Forward*sector*:*Sm90Scheduler*' --bundle 2>&1 | tail -6
echo "== done at $SECONDS s"
