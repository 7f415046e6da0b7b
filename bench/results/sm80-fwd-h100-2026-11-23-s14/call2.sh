#!/bin/bash
# h14-fwd80 call 2 (H100): RescalePastThreshold on every aligned sm80 forward tile (the tables at
# 64 / 128 / 192 / 256 and the narrow tiles; the staged tiles unchanged) against HEAD in turns
# (OLD / NEW: every sm80 forward instance, sm_90a) and PyTorch's flash; meanwhile the sm80 library
# (all head dims, fp16 + bf16) and its tests build from the candidate tree, then the sm80 forward
# tests, memcheck and racecheck on FullWidth, RescalePastThreshold and the D = 72 NarrowTiles.
#   source scripts/gpu-env.sh; C=build-h14fwd80/carry2 OUT=.. bash .../call2.sh
set -o pipefail
export PYTHONUNBUFFERED=1
C=${C:?carry dir}
T14=$PWD/bench/sm80_fwd_turns.py
xz -dc $C/old.so.xz > /tmp/old.so && xz -dc $C/new.so.xz > /tmp/new.so
source bench/sm80_call_steps.sh
sm80_build_tree_tests $C/tree.tgz "64;128;192;256" 14 260
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
echo "== $(date +%T) turns"
f16="16,16,fp16"; b16="16,16,bf16"
timeout 200 python3 $T14 --old /tmp/old.so --new /tmp/new.so --runs 5 --json $OUT/turns.json \
  --points "72,2048,0,$f16;128,2048,0,$f16;80,2048,0,$f16;96,2048,0,$f16;136,2048,0,$f16;\
192,2048,0,$f16;200,2048,0,$f16;256,2048,0,$f16;64,2048,0,$f16;72,2048,1,$f16;128,2048,1,$f16;\
64,512,0;64,512,1;64,4096,0;128,512,0;128,512,1;128,4096,0;128,4096,1;128,16384,0;\
256,512,0;256,512,1;256,4096,0;256,4096,1;192,2048,0,$b16" 2>&1 | grep -v Warning
sm80_run_forward_tests 90 90 'FullWidth/*:RescalePastThreshold/*:NarrowTiles/*d72*'
sm80_pack_logs
echo "== $(date +%T) done"
