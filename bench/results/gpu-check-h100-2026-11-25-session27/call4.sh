#!/bin/bash
# Twenty-seventh session, call 4: the sm80 backward's per-score mask tests without short-circuit
# branches (branch s27-mask, WindowMask::is_masked_unbranched; call 3's ncu: nested branches in
# the partial tiles). old (main 331ac21) / new bucket 64 / 128 / 256 shims in turns beside FA2,
# default mode at the sweep's causal points and controls, then deterministic; then the candidate
# tree's full sm80 gpu-check (every head dim: tests and the sanitizer set).
source scripts/gpu-env.sh 2>/dev/null
C=build-s27c4
mkdir -p /tmp/cand && tar xzf $C/tree.tgz -C /tmp/cand && ln -s "$PWD/.deps" /tmp/cand/.deps
CHECKS=(--families sm80 --dtypes "fp16;bf16" --no-bench)
mkdir -p $OUT/gc
( cd /tmp/cand && OUT=$OUT/gc nice -n 19 scripts/gpu-check "${CHECKS[@]}" --no-tests --no-sanitizers \
    --jobs 14 > $OUT/gc-build.txt 2>&1 ) &
BUILD=$!
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
xz -dc $C/old.so.xz > /tmp/old.so; xz -dc $C/new.so.xz > /tmp/new.so
P='64,512,1;64,1024,1;64,2048,1;64,8192,1;128,512,1;128,1024,1;128,2048,1;128,8192,1;256,512,1;256,1024,1;256,2048,1;256,8192,1;64,512,0;128,2048,0;256,2048,0'
python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 2 --points "$P" \
  > $OUT/turns_default.txt 2>&1; echo "default rc $?"; grep "^D=" $OUT/turns_default.txt
python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 1 --deterministic \
  --points '64,512,1;128,1024,1;256,512,1;256,2048,1' > $OUT/turns_det.txt 2>&1; echo "det rc $?"; grep "^D=" $OUT/turns_det.txt
echo "== $(date +%T) (at $SECONDS s) waiting for the build"
wait $BUILD; tail -3 $OUT/gc-build.txt
( cd /tmp/cand && OUT=$OUT/gc timeout $((590 - SECONDS)) scripts/gpu-check "${CHECKS[@]}" --jobs 14 --bundle 2>&1 | tail -12 )
rm -f $OUT/gc-build.txt
