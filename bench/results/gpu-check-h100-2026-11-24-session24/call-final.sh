#!/bin/bash
# s24 final call, on the session's final tree (main with v47c / v47d merged): the integrated run
# (build sm80 + sm90, fp16 and bf16; every GPU test; memcheck / racecheck per family), and while
# it builds, backward v47d (the deterministic mode's step classes 5 / 6) and v47c (class 7) in
# turns beside main c25929f and FA2 (shims from build-s24bwd80b/carry).
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
CHECKS=(--families "sm80;sm90" --dtypes "fp16;bf16" --no-bench)
sm80_unpack_old_new build-s24bwd80b/carry || exit 1
sm80_gpu_check_start "${CHECKS[@]}"
timeout 100 python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 3 --deterministic \
  --points '80,2048,0,16,16,fp16;72,2048,0,16,16,fp16;96,2048,0,16,16,fp16;80,2048,1,16,16,fp16;128,2048,0,16,16,fp16' \
  > $OUT/turns_det.txt 2>&1
echo "== $(date +%T) (at $SECONDS s) det rc $?"; grep "^D=" $OUT/turns_det.txt | cut -c1-190
timeout 80 python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 3 \
  --points '104,2048,0,16,16,fp16;112,2048,0,16,16,fp16;112,2048,1,16,16,fp16;128,2048,0,16,16,fp16' \
  > $OUT/turns_class7.txt 2>&1
echo "== $(date +%T) (at $SECONDS s) class7 rc $?"; grep "^D=" $OUT/turns_class7.txt | cut -c1-190
sm80_gpu_check_wait
sm80_gpu_check_run 590 "${CHECKS[@]}"
(cd "$OUT" && tar czf gc.tgz --remove-files gc gc-build.txt)
