#!/bin/bash
# h13-fwd80 call 2 (H100): the v13 table (WholePrologueCopies at 64/128/256; the 64 tile's O through
# shared memory with EpilogueWarpRowAfresh) in turns beside the table before it (shim variant 50),
# the 64 table's two parts (51: whole prologue copies only, 52: the epilogue only) and PyTorch's
# flash; meanwhile the library's sm80 GPU tests build from the v13 tree (TREE: a tarball of the
# worktree's tracked files); then the tests, memcheck and racecheck on cases that run the change.
#   source scripts/gpu-env.sh; LIB=<shim> TREE=<tgz> OUT=<dir> bash .../call2.sh
set -o pipefail
export PYTHONUNBUFFERED=1
H=$PWD/bench/results/sm80-fwd-h100-2026-11-23-s13
L=${LIB:?shim}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
source bench/sm80_call_steps.sh
sm80_build_tree_tests ${TREE:?tree} "64;128;256" 14
echo "== $(date +%T) turns"
nc() { local o=""; for N in 512 1024 2048 4096 8192 16384; do o+="$1,$N,0;"; done; echo "${o%;}"; }
timeout 120 python3 $H/turns13.py --lib $L --variants 50,51,52 --json $OUT/turns.json \
  --points "$(nc 256);$(nc 64);$(nc 128);256,512,1;128,4096,1;64,1024,1" 2>&1 | grep -v Warning
sm80_run_forward_tests 60 50 'FullWidth/*:HeadGroups/*d128_window_8_heads*:HeadGroups/*d128_causal_gqa*'
sm80_pack_logs
echo "== $(date +%T) done"
