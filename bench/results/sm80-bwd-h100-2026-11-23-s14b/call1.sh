#!/bin/bash
# h14-bwd80b call 1: ScoreStatisticsAhead on the 128 and 256 tables in turns beside the tables and
# FA2 (bench/sm80_bwd_det_ratio.py, both modes for 301 / 303, the default mode for 302), shim of
#   SM80_TIMELINE_AHEAD_ONLY=1 SM80_SHIMS=plain bench/sm80_bwd_timeline_build.sh build-h14bwd80b/shim 90a
# while the library's sm80 tests build (head dims 128 and 256, fp16 + bf16) from the candidate tree
# build-h14bwd80b/tree.tgz (the 128 tables of both modes one query tile ahead; 256 unchanged: 303's
# NoMask kernels spill 8 bytes); then the sm80 backward GPU tests, memcheck + racecheck on one case
# per changed kernel (the two 128 tables' NoMask and WindowMask kernels).
source scripts/gpu-env.sh
source bench/sm80_call_steps.sh
export PYTHONUNBUFFERED=1
SM80_FORWARD_TESTS='*cuda_sm80*:*Sm80Backward*'
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
sm80_build_tree_tests build-h14bwd80b/tree.tgz "128;256" 12 170
SHIM=build-h14bwd80b/shim/plain/libsm80bwdtimeline.so
pts() { local d=$1 p="" n c; for n in 512 1024 4096 16384; do for c in 0 1; do p="$p;$d,$n,$c"; done; done; echo "${p#;}"; }
ab() {  # variant, points, timeout, extra flags
  timeout "$3" python3 bench/sm80_bwd_det_ratio.py --plain $SHIM --points "$2" --variant "$1" \
    --reps 5 --json "$OUT/ab$1.json" $4 > "$OUT/ab$1.log" 2>&1
  local rc=$?
  echo "== $(date +%T) variant $1 rc $rc"; cut -c1-330 "$OUT/ab$1.log"
}
ab 301 "$(pts 128)" 75
ab 303 "$(pts 256)" 60
ab 302 "$(pts 128)" 35 --default-only
sm80_run_forward_tests 60 35 '*Sm80Backward*negative_scale_causal_d128*:*Sm80Backward*lines_nomask_gqa_d128_odd*'
sm80_pack_logs
