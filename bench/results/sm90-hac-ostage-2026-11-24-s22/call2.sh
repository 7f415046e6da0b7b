#!/bin/bash
# s22 call 2 (optional, after call.sh): ncu of packed D = 74 (staged O stores) against aligned
# D = 80 in the Hopper kernels (fp16, B = 16, H = 16, N = 2048), as s21's call 5 did before
# them: the L2 write sectors ("L2 Compression Input Sectors", MemoryWorkloadAnalysis) should drop
# from ~2x aligned D = 80's (4-byte pair stores) to ~1.1x.
#   run(command="bash bench/results/sm90-hac-ostage-2026-11-24-s22/call2.sh", carry=[".deps"],
#       timeout_s=600)
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
