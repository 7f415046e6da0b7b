#!/bin/bash
# h14-bwd80 call 2: ScoreStatisticsAhead at D = 64 in turns beside the table and FA2 (default
# mode, bwd TFLOP/s; bench/sm80_bwd_det_ratio.py --default-only; shim of commit ffc591d (b97fb01 on main):
#   SM80_TIMELINE_ONLY_64=1 SM80_SHIMS=plain bench/sm80_bwd_timeline_build.sh build-h14bwd80/cand 90a)
# variants 292 (two tiles ahead) and 291 (one), while the library's sm80 tests build (head dim 64,
# fp16 + bf16) from the candidate tree build-h14bwd80/tree.tgz (ffc591d + the 64 table with
# ScoreStatisticsAhead<..., 2>); then the sm80 GPU tests, memcheck + racecheck on two d64 cases.
source scripts/gpu-env.sh
source bench/sm80_call_steps.sh
export PYTHONUNBUFFERED=1
SM80_FORWARD_TESTS='*cuda_sm80*:*Sm80Backward*'
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
sm80_build_tree_tests build-h14bwd80/tree.tgz "64" 12
SHIM=build-h14bwd80/cand/plain/libsm80bwdtimeline.so
P="64,512,0;64,512,1;64,1024,0;64,1024,1;64,2048,0;64,2048,1;64,4096,0;64,4096,1;64,8192,1;64,16384,0;64,16384,1"
for v in 292 291; do
  timeout 110 python3 bench/sm80_bwd_det_ratio.py --plain $SHIM --points "$P" --default-only \
    --variant $v --reps 5 --json $OUT/ab$v.json > $OUT/ab$v.log 2>&1
  echo "== $(date +%T) variant $v rc $?"; cut -c1-260 $OUT/ab$v.log
done
sm80_run_forward_tests 150 100 '*Sm80Backward*nomask_gqa_d64*:*Sm80Backward*strided_causal_d64*'
sm80_pack_logs
