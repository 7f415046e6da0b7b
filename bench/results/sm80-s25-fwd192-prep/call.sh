#!/bin/bash
# s25-fwd192 (bench/results/sm80-s25-fwd192-prep/NOTES.md): the three D = 192 unmasked candidates
# in turns beside main 221b474 and PyTorch's flash (FA2). Carry build-f192/carry (A),
# build-f192-c/carry (C, the branch head) and build-f192-b/carry (B); each old.so.xz is the same
# 221b474 shim.
source scripts/gpu-env.sh 2>/dev/null
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
declare -A carry=([c]=build-f192-c/carry [a]=build-f192/carry [b]=build-f192-b/carry)
xz -dc build-f192/carry/old.so.xz > /tmp/old.so || exit 1
for v in c a b; do xz -dc "${carry[$v]}/new.so.xz" > /tmp/new_$v.so || exit 1; done
points='192,2048,0,16,16,fp16;192,2048,1,16,16,fp16;192,4096,0,4,16,bf16;192,512,0,32,16,bf16;160,2048,0,16,16,fp16;184,2048,0,16,16,fp16;136,2048,0,16,16,fp16'
for v in c a b; do
  timeout 170 python3 bench/sm80_fwd_turns.py --old /tmp/old.so --new /tmp/new_$v.so --runs 3 \
    --points "$points" 2>&1 | grep -v Warning | tee "${OUT:-/tmp}/turns_$v.txt"
  echo "== $(date +%T) (at $SECONDS s) candidate $v done"
done
