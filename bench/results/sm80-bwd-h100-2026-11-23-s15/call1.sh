#!/bin/bash
# h15-bwd80 call 1: ScoreStatisticsAhead at 256 without v30's NoMask spill (both passes in the
# masked kernels, the exponent pass alone in the NoMask kernels), in turns beside main's 256 tables
# and FA2 (bench/sm80_bwd_det_ratio.py, both modes: variant 311 one ahead; 312 two ahead, the
# default mode, with the time left), shim of
#   SM80_TIMELINE_AHEAD_ONLY=1 SM80_SHIMS=plain bench/sm80_bwd_timeline_build.sh build-h15-bwd80/shim 90a
# (copied to build-h15-bwd80/carry/shim)
# (built here from dd03cc7: main's tables + the variants), while the library's sm80 tests build
# (head dim 256, fp16 + bf16, sm_90a) from the candidate tree build-h15-bwd80/carry/tree.tgz (both 256
# tables one ahead, AheadPasses::exponent); then the sm80 backward GPU tests, memcheck + racecheck
# on one WindowMask and one NoMask d256 case. Run from the repository root: bash build-h15-bwd80/carry/call1.sh
source scripts/gpu-env.sh
source bench/sm80_call_steps.sh
export PYTHONUNBUFFERED=1
LIMIT=${LIMIT:-232}
left() { echo $(( LIMIT - SECONDS )); }
SM80_FORWARD_TESTS='*cuda_sm80*:*Sm80Backward*'
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
sm80_build_tree_tests build-h15-bwd80/carry/tree.tgz "256" 14 150
SHIM=build-h15-bwd80/carry/shim/plain/libsm80bwdtimeline.so
pts() { local d=$1 p="" n c; for n in 512 1024 4096 16384; do for c in 0 1; do p="$p;$d,$n,$c"; done; done; echo "${p#;}"; }
ab() {  # variant, points, timeout, extra flags
  timeout "$3" python3 bench/sm80_bwd_det_ratio.py --plain $SHIM --points "$2" --variant "$1" \
    --reps 5 --json "$OUT/ab$1.json" $4 > "$OUT/ab$1.log" 2>&1
  local rc=$?
  echo "== $(date +%T) (at $SECONDS s) variant $1 rc $rc"; cut -c1-300 "$OUT/ab$1.log"
}
ab 311 "$(pts 256)" 70
# 312 while the library still builds (the GPU is idle then), else after the sanitizers.
ran312=0
if [ ! -f "$OUT/lib-build.rc" ]; then ab 312 "$(pts 256)" 30 --default-only; ran312=1; fi
sm80_run_forward_tests 75 40 '*Sm80Backward*negative_scale_causal_d256*:*Sm80Backward*strided_nomask_d256*'
echo "== at $SECONDS s"
t=$(( $(left) - 3 ))
if [ "$ran312" = 0 ] && [ "$t" -ge 20 ]; then ab 312 "$(pts 256)" "$t" --default-only
elif [ "$ran312" = 0 ]; then echo "312 skipped ($t s left)"; fi
sm80_pack_logs
