#!/bin/bash
# h14-fwd80 call 1 (H100): D = 72 candidates in turns. OLD = HEAD's d128 fp16/bf16 instances,
# NEW = the candidate tree's (RescalePastThreshold on HalvedUnmaskedNarrowForwardConfig<128>)
# with variants14h.cu (bf16; 70 HEAD's D = 72 tile, 71 + RescalePastThreshold, 72 the same walk
# on 8 warps, 73 = 72 + rescale, 74 the D = 128 table + rescale, 75 D = 73..80 unmasked +
# rescale) and PyTorch's flash; meanwhile the sm80 d128 library and its tests build from the
# candidate tree, then the sm80 forward tests, memcheck and racecheck on the D = 72 cases.
#   source scripts/gpu-env.sh; C=build-h14fwd80/carry OUT=.. bash .../call1.sh
set -o pipefail
export PYTHONUNBUFFERED=1
C=${C:?carry dir}
T14=$PWD/bench/sm80_fwd_turns.py
xz -dc $C/old.so.xz > /tmp/old.so && xz -dc $C/new.so.xz > /tmp/new.so
source bench/sm80_call_steps.sh
sm80_build_tree_tests $C/tree.tgz "128" 14 220
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
echo "== $(date +%T) turns"
b16="16,16,bf16"; f16="16,16,fp16"
timeout 150 python3 $T14 --old /tmp/old.so --new /tmp/new.so --variants 70,71,72,73,74,75 \
  --runs 5 --json $OUT/turns.json --points "72,2048,0,$f16;128,2048,0,$f16;72,2048,0,$b16;\
128,2048,0,$b16;80,2048,0,$b16;72,512,0;72,8192,0;72,2048,1,$f16;128,512,0" 2>&1 | grep -v Warning
sm80_run_forward_tests 60 60 'NarrowTiles/*d72*:NarrowTiles/*d65*'
sm80_pack_logs
echo "== $(date +%T) done"
