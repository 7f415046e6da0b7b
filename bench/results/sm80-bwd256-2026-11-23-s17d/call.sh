#!/bin/bash
# h17-bwd256b call: the default 256 table's NoMask kernel with fewer resident CTAs reducing into
# the same query tile's dQ lines at once, in turns beside main's 256 tables and FA2
# (bench/sm80_bwd_det_ratio.py --default-only): variant 195 = UnmaskedHeadsFastest (grid KV heads
# x key tiles x batch) at the six points, 196 = UnmaskedHeadGroups of 32 pairs at the three
# non-causal ones (195's causal points run the table's kernels in both contestants: controls).
# Shim: SM80_TIMELINE_AHEAD_ONLY=1 SM80_SHIMS=plain bench/sm80_bwd_timeline_build.sh on branch
# h17-bwd256b (main's tables + the variants). Meanwhile the library's sm80 tests build (head dim
# 256, fp16 + bf16, sm_90a) from the candidate tree (the branch with
# LargeSharedMemoryBackwardConfig<256> = UnmaskedHeadsFastest<...>); then the D = 256 sm80
# backward GPU tests, racecheck + memcheck on the new NoMask GQA case.
# Run from the repository root.
C=build-h17-bwd256b/carry
source scripts/gpu-env.sh
source bench/sm80_call_steps.sh
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/bench
# range_search_causal_d256 (13 s, masked kernels only: unchanged) is left out for time.
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
sm80_build_tree_tests $C/tree.tgz "256" 14 110
SM80_BWD_SHIM=$C/shim/libsm80bwdtimeline.so
PTS="256,1024,0;256,1024,1;256,4096,0;256,4096,1;256,16384,0;256,16384,1"
PTS_FULL="256,1024,0;256,4096,0;256,16384,0"
sm80_bwd_ab 195 "$PTS" 50 --default-only
sm80_bwd_ab 196 "$PTS_FULL" 28 --default-only
sm80_run_forward_tests 25 25 \
  '*Sm80Backward*unmasked_order_gqa_d256*' \
  '*cuda_sm80*_D256*:*Sm80Backward*d256*-*range_search_causal_d256*'
echo "== at $SECONDS s"
sm80_pack_logs
