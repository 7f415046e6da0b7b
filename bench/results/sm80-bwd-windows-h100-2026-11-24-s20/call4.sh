#!/bin/bash
# h20-bwd-windows, call 4: v36 with the windows copied up to the rows' ends and the first k-step masked in turns beside
# main (1682e3f) and PyTorch's flash backward on packed odd head dims, then the library's sm80 GPU
# tests and both sanitizers. The library builds in the background (niced) while the turns run.
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
sm80_unpack_old_new build-s20/carry || exit 1
mkdir -p "$OUT/gc"
checks=(--families sm80 --dtypes "fp16;bf16" --no-bench)
( OUT=$OUT/gc nice -n 19 scripts/gpu-check "${checks[@]}" --no-tests --no-sanitizers --jobs 14 \
    > "$OUT/gc-build.txt" 2>&1 ) &
build_pid=$!
f="16,16,fp16"
points=""
for D in 129 130 132 74 76 73 65 89 196 201 193 121 33 72 136; do points+="$D,2048,0,$f;"; done
points+="129,2048,1,$f;74,2048,1,$f;129,2048,0,16,16,bf16"
timeout 330 python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 3 \
  --json "$OUT/turns.json" --points "$points" 2>&1 | grep -v Warning | tee "$OUT/turns.txt"
wait "$build_pid"
tail -3 "$OUT/gc-build.txt"
for D in 129 136 74 80; do
  build-gpu-check/tools/cli/fattn trace --device cuda --dtype fp16 --batch 16 --heads 16 \
    --seqlen 2048 --head-dim $D --direction bwd --backend cuda_sm80 --output /tmp/trace.json \
    --json 2>&1 | grep -o '"by_name".*' | sed "s/^/D=$D /"
done
OUT=$OUT/gc timeout $((575 - SECONDS)) scripts/gpu-check "${checks[@]}" --bundle 2>&1 | tail -14
