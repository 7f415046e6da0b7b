#!/bin/bash
# Twenty-third session, call 8: (1) a build of the 256 bucket only (FATTN_CUDA_HEAD_DIMS=256), the
# configuration in which call 7 found Sm80ForwardShiftedWindows.NonFiniteNeighbourHeads /
# StoresOnlyTheHeadsColumns failing at D = 74..185 (their windows ran the 256 bucket's 13- and
# 14..16-step classes), with the fix (has_step_class, forward.cuh); (2) every sm80 GPU test and
# both sanitizers on the full build of the final tree (KeyCopiesUnderPv on the 256 wide windows).
source scripts/gpu-env.sh 2>/dev/null
FILTER='*WideWindows*:*ShiftedWindows*:*NarrowTiles*:*Misaligned*'
OUT=$OUT/pruned timeout 200 scripts/gpu-check --families sm80 --dtypes "fp16;bf16" --head-dims 256 \
  --no-bench --no-sanitizers --filter "$FILTER" --build-dir build-pruned --bundle 2>&1 | tail -4
OUT=$OUT/full timeout $((590 - SECONDS)) scripts/gpu-check --families sm80 --dtypes "fp16;bf16" \
  --no-bench --bundle 2>&1 | tail -12
