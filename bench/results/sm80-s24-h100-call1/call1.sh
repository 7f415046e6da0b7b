#!/bin/bash
# Twenty-fourth session, call 1: backward v44 (GroupedPhaseATests on the Large 256 table, desk
# work s24-bwd256-prep) in turns beside main (559c953 = the same 256 backward as f63227d) and
# FA2, default and deterministic, then the sm80 backward GPU tests and both sanitizers on a
# 256-only build of the trial tree (main + s24-bwd256-prep): every head dim reaches the 256
# bucket there, so D < 193 runs the grouped steps over zero-filled columns.
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
CHECKS=(--families sm80 --dtypes "fp16;bf16" --no-bench --head-dims 256
        --filter '*Sm80Backward*:*cuda_sm80*')
sm80_unpack_old_new build-s24bwd256/carry || exit 1
sm80_gpu_check_start "${CHECKS[@]}"
P='256,4096,0,4,8,bf16;256,4096,1,4,8,bf16;256,1024,0,16,8,bf16;256,2048,0,16,16,fp16;256,16384,0,1,8,bf16'
timeout 170 python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 3 \
  --points "$P" > $OUT/turns_default.txt 2>&1
echo "== $(date +%T) (at $SECONDS s) default rc $?"; tail -12 $OUT/turns_default.txt
timeout 150 python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 3 \
  --deterministic --points "$P" > $OUT/turns_det.txt 2>&1
echo "== $(date +%T) (at $SECONDS s) deterministic rc $?"; tail -12 $OUT/turns_det.txt
sm80_gpu_check_wait
sm80_gpu_check_run 590 "${CHECKS[@]}"
(cd "$OUT" && tar czf gc.tgz --remove-files gc gc-build.txt)
