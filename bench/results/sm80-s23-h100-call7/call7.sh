#!/bin/bash
# Twenty-third session, call 7: v24's KeyCopiesUnderPv on the 256 bucket's wide windows
# (WideWindowForwardConfig<256, 14..16>: packed D = 202..249 at 2-byte rows), in turns beside
# main 806f710 and FA2, then the sm80 GPU tests of the windows on this tree. Carry
# build-s23kc256/carry and .deps.
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
FILTER='*WideWindows*:*ShiftedWindows*:*NarrowTiles*:*Misaligned*'
sm80_unpack_old_new build-s23kc256/carry || exit 1
sm80_gpu_check_start --families sm80 --dtypes "fp16;bf16" --no-bench --head-dims 256 --filter "$FILTER"
f="16,16,fp16"
timeout 120 python3 bench/sm80_fwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 3 \
  --points "217,2048,0,$f;225,2048,0,$f;233,2048,0,$f;241,2048,0,$f;249,2048,0,$f;233,2048,1,$f;233,2048,0,16,16,bf16;234,2048,0,$f;233,512,0,64,16,fp16;201,2048,0,$f;256,2048,0,$f" \
  2>&1 | grep -v Warning | tee "$OUT/turns_fwd_kc.txt"
sm80_gpu_check_wait
sm80_gpu_check_run 590 --families sm80 --dtypes "fp16;bf16" --no-bench --head-dims 256 --filter "$FILTER"
(cd "$OUT" && tar czf gc.tgz --remove-files gc gc-build.txt)
