#!/bin/bash
# h20-bwd-windows, call 2: where the packed backward's time goes (fattn trace: the pre- and
# postprocess against the main kernel, D = 129 / 74 packed against 136 / 72 / 80 aligned), and
# NEXT.md's ncu comparison of the Hopper forward at packed D = 74 against aligned D = 80 (#6).
source scripts/gpu-env.sh 2>/dev/null
OUT=$OUT/gc scripts/gpu-check --families "sm80;sm90" --dtypes fp16 --no-tests --no-sanitizers \
  --no-bench 2>&1 | tail -3
F=build-gpu-check/tools/cli/fattn
shape=(--device cuda --dtype fp16 --batch 16 --heads 16 --seqlen 2048)
for D in 129 136 74 72 80 196 200; do
  $F trace "${shape[@]}" --head-dim $D --direction bwd --backend cuda_sm80 \
    --output "$OUT/trace-bwd-d$D.json" --json > "$OUT/trace-bwd-d$D.txt" 2>&1
  echo "== D=$D rc $?"; head -c 1500 "$OUT/trace-bwd-d$D.txt"; echo
done
for D in 74 80; do
  timeout 120 ncu --clock-control none -k regex:forward_kernel -c 2 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
    $F bench "${shape[@]}" --head-dim $D --backend auto --no-check --repeats 1 --warmup 0 \
    > "$OUT/ncu-d$D.txt" 2>&1
  echo "== ncu D=$D rc $?"
done
cd "$OUT" && tar czf traces.tgz trace-bwd-*.json && rm -f trace-bwd-*.json
