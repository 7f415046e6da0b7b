#!/bin/bash
# h17-bwd128swz call: DqStagingPairSwizzle at D = 128 (rows of 8 chunks, XOR (2·row) % 8), in
# turns beside main's 128 tables and FA2 (sm80_bwd_det_ratio.py: variant 182 = pair swizzle +
# split offsets = the candidate tree's tables, both modes; 181 = pair swizzle alone, default mode),
# shim of SM80_TIMELINE_AHEAD_ONLY=1 SM80_SHIMS=plain bench/sm80_bwd_timeline_build.sh (commit
# 962e228: main's tables + the variants), while the library's sm80 tests build (head dim 128,
# fp16 + bf16, sm_90a) from the candidate tree (commit d9fa96c); then the D = 128 sm80 GPU tests,
# racecheck + memcheck on a masked d128 case. Run from the repository root.
C=build-h17-bwd128swz/carry
source scripts/gpu-env.sh
source bench/sm80_call_steps.sh
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/bench
LIMIT=${LIMIT:-165}
left() { echo $(( LIMIT - SECONDS )); }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
sm80_build_tree_tests $C/tree.tgz "128" 14 120
SM80_BWD_SHIM=$C/shim/libsm80bwdtimeline.so
PTS="128,1024,0;128,1024,1;128,4096,0;128,4096,1;128,16384,0;128,16384,1"
sm80_bwd_ab 182 "$PTS" 70
t=$(( $(left) - 75 )); [ "$t" -gt 40 ] && t=40
if [ "$t" -ge 20 ]; then sm80_bwd_ab 181 "$PTS" "$t" --default-only; else echo "181 skipped ($t s)"; fi
sm80_run_forward_tests 40 40 \
  '*Sm80Backward*negative_scale_causal_d128*' \
  '*cuda_sm80*_D128*:*Sm80Backward*d128*'
echo "== at $SECONDS s"
sm80_pack_logs
