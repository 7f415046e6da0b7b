#!/bin/bash
# h15-d72 call 1 (H100): the D = 65..72 unmasked tile in turns. OLD = main's d128 fp16/bf16
# forward instances, NEW = the candidate tree's (RowMaxByPairs + ExponentsUnderPv on
# HalvedUnmaskedNarrowForwardConfig<128>) with variants15d.cu (bf16: 80 main's tile, 81 pairs,
# 82 exponentials under P·V, 83 both = NEW's table, 84 83 + RowMaxUnderScores), PyTorch's flash
# in the same turns; meanwhile the sm80 d128 library and its tests build from the candidate tree,
# then the sm80 forward tests, memcheck and racecheck on the D = 65..72 cases.
#   source scripts/gpu-env.sh; C=build-h15-d72/carry OUT=.. bash build-h15-d72/carry/call1.sh
set -o pipefail
export PYTHONUNBUFFERED=1
C=${C:?carry dir}
TURNS=$PWD/bench/sm80_fwd_turns.py
xz -dc $C/old.so.xz > /tmp/old.so && xz -dc $C/new.so.xz > /tmp/new.so
source bench/sm80_call_steps.sh
sm80_build_tree_tests $C/tree.tgz "128" 14 130
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
echo "== $(date +%T) turns"
b16="16,16,bf16"; f16="16,16,fp16"
timeout 110 python3 $TURNS --old /tmp/old.so --new /tmp/new.so --variants 80,81,82,83,84 \
  --runs 5 --json $OUT/turns.json --points "72,2048,0,$f16;72,2048,0,$b16;72,512,0;72,8192,0;\
128,2048,0,$f16;72,2048,1,$f16;72,2048,1,$b16" 2>&1 | grep -v Warning | tee $OUT/turns.txt
sm80_run_forward_tests 40 30 'NarrowTiles/*d72*:NarrowTiles/*d65*:RescalePastThreshold/*d72*'
sm80_pack_logs
echo "== $(date +%T) done"
