#!/bin/bash
# s21 call 5: where packed D = 74's forward time goes after the tail boxes (ncu: packed D = 74
# against aligned D = 80 in the Hopper kernels, fp16, B = 16, H = 16, N = 2048), for NEXT.md.
source scripts/gpu-env.sh 2>/dev/null
OUT=$OUT/gc scripts/gpu-check --families sm90 --dtypes fp16 --head-dims 128 --no-tests \
  --no-sanitizers --no-bench 2>&1 | tail -2
F=build-gpu-check/tools/cli/fattn
shape=(--device cuda --dtype fp16 --batch 16 --heads 16 --seqlen 2048)
for D in 74 80; do
  $F bench "${shape[@]}" --head-dim $D --backend auto --no-check 2>&1 | tail -4
  timeout 150 ncu --clock-control none -k regex:forward_kernel -c 2 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
    --section SchedulerStats --section InstructionStats \
    $F bench "${shape[@]}" --head-dim $D --backend auto --no-check --repeats 1 --warmup 0 \
    > "$OUT/ncu-d$D.txt" 2>&1
  echo "== ncu D=$D rc $?"
done
