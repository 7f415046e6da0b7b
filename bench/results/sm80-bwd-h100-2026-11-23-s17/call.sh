#!/bin/bash
# h17-bwd256 call: DqStagingPairSwizzle at D = 256 (the dQ line staging's STS.64 without its 2-way
# bank conflict), in turns beside main's 256 tables and FA2 (sm80_bwd_det_ratio.py, both modes:
# variant 172 = pair swizzle + split offsets = the candidate tree's tables; 171 = pair swizzle alone),
# shim of  SM80_TIMELINE_AHEAD_ONLY=1 SM80_SHIMS=plain bench/sm80_bwd_timeline_build.sh (commit 66004ca:
# main's tables + the variants), while the library's sm80 tests build (head dim 256, fp16 + bf16,
# sm_90a) from the candidate tree (commit 210ab47); then the D = 256 sm80 backward GPU tests,
# memcheck + racecheck on one masked and one NoMask d256 case. Run from the repository root.
C=build-h17-bwd256/carry
source scripts/gpu-env.sh
source bench/sm80_call_steps.sh
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/bench
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
sm80_build_tree_tests $C/tree.tgz "256" 14 150
SM80_BWD_SHIM=$C/shim/libsm80bwdtimeline.so SM80_BWD_RATIO=$C/sm80_bwd_det_ratio.py
PTS="256,1024,0;256,1024,1;256,4096,0;256,4096,1;256,16384,0;256,16384,1"
sm80_bwd_ab 172 "$PTS" 75
sm80_bwd_ab 171 "$PTS" 60
sm80_run_forward_tests 60 40 \
  '*Sm80Backward*negative_scale_causal_d256*:*Sm80Backward*strided_nomask_d256*' \
  '*cuda_sm80*_D256*:*Sm80Backward*d256*'
echo "== at $SECONDS s"
sm80_pack_logs
