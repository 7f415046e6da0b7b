#!/bin/bash
# h13-fwd80b call 1 (H100): the v14 candidate (WholeChunkKvCopies at the 256 table's tile and the
# 13-step D = 193..208 tile; PrologueChunksPerLane at the 256 table) against the v13 table in
# turns: two shims (OLD: HEAD, NEW: the candidate with bf16 variants 60 = v13 spelled out,
# 61 = the 256 loop copies alone, 63 = the 13-step tile + WholePrologueCopies), PyTorch's flash
# in the same rows; the reference check of both; meanwhile the library's sm80 GPU tests build
# from the candidate tree (TREE), then the tests, memcheck and racecheck.
#   source scripts/gpu-env.sh; OLD=.. NEW=.. TREE=.. OUT=.. bash .../call1.sh
set -o pipefail
export PYTHONUNBUFFERED=1
H=$PWD/bench/results/sm80-fwd-h100-2026-11-23-s13b
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
source bench/sm80_call_steps.sh
sm80_build_tree_tests ${TREE:?tree} "64;128;256" 14
echo "== $(date +%T) check"
timeout 60 python3 $H/check14.py --libs ${OLD:?old},${NEW:?new} 2>&1 | grep -v Warning | tail -8
echo "== $(date +%T) turns"
nc() { local o=""; for N in 512 1024 2048 4096 8192 16384; do o+="256,$N,0;"; done; echo "${o%;}"; }
odd="200,2048,0,16,16,fp16;192,2048,0,16,16,fp16;136,2048,0,16,16,fp16;256,2048,0,16,16,fp16"
timeout 150 python3 $H/turns14.py --old $OLD --new $NEW --variants 60,61,63 --json $OUT/turns.json \
  --points "$(nc);256,512,1;256,4096,1;200,2048,0,16,16,bf16;256,2048,0,16,16,bf16;$odd;200,2048,1,16,16,fp16" \
  2>&1 | grep -v Warning
sm80_run_forward_tests 60 50 'FullWidth/*:HeadGroups/*d128_window_8_heads*'
sm80_pack_logs
echo "== $(date +%T) done"
