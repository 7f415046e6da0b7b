#!/bin/bash
# Twenty-fourth session, call 3, on main + s24-det256 + s24-ostage-all:
# (1) sm80 backward v44d (GroupedPhaseATests in the deterministic 256 table) in turns beside main
#     (v44) and FA2, deterministic mode;
# (2) the Hopper staged O with the cheaper addresses (s24-ostage-prep) staging at every V-ring
#     width (kWidestStagedOutputWidth = 256) beside main (register pairs at 224 / 240 / 256, the
#     old addresses at 144..208), heads as columns at every width 144..256, fp16 both masks, bf16;
# (3) the GPU tests of both (sm80 backward, sm90 unaligned) on a 192 + 256 build, and sanitizers.
# Old = build-s24c3/old-tree.tgz (git archive main src include bench scripts).
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
CHECKS=(--families "sm80;sm90" --dtypes "fp16;bf16" --no-bench --head-dims "192;256"
        --filter '*Sm80Backward*:*Sm90Unaligned*')
mkdir -p /tmp/oldtree && tar xzf build-s24c3/old-tree.tgz -C /tmp/oldtree || exit 1
export PATH=/usr/local/cuda/bin:$PATH
( SM90_SOURCE_ROOT=/tmp/oldtree bench/sm90_build.sh /tmp/sh-old 4 > $OUT/shim90-old.log 2>&1 ) &
( bench/sm90_build.sh /tmp/sh-new 4 > $OUT/shim90-new.log 2>&1 ) &
( cd /tmp/oldtree && bash bench/sm80_old_new_build.sh /tmp/b-old . "256" 4 bwd > $OUT/b-old.log 2>&1 ) &
( bash bench/sm80_old_new_build.sh /tmp/b-new . "256" 4 bwd > $OUT/b-new.log 2>&1 ) &
wait
tail -qn 1 $OUT/shim90-*.log $OUT/b-*.log
echo "== $(date +%T) (at $SECONDS s) shims built"
sm80_gpu_check_start "${CHECKS[@]}"
P='256,4096,0,4,8,bf16;256,4096,1,4,8,bf16;256,1024,0,16,8,bf16;256,2048,0,16,16,fp16;256,16384,0,1,8,bf16'
timeout 150 python3 bench/sm80_bwd_turns.py --old /tmp/b-old/new/new.so --new /tmp/b-new/new/new.so \
  --runs 3 --deterministic --points "$P" > $OUT/turns_det.txt 2>&1
echo "== $(date +%T) (at $SECONDS s) det rc $?"; tail -6 $OUT/turns_det.txt
libs=(--lib new=/tmp/sh-new/libsm90shim.so --lib old=/tmp/sh-old/libsm90shim.so)
timeout 150 python3 bench/sm90_vs_cudnn.py "${libs[@]}" --bench --dims 129,161,185,201,217,234,249 \
  --seqlens 2048 --dtype fp16 --shape 16,16 --causal 0,1 --rounds 10 --same-outputs --no-flash \
  --json "$OUT/sm90_fp16.json" 2>&1 | grep -v -e Warning -e "cudnn failed" -e scaled_dot > $OUT/sm90_fp16.txt
echo "== $(date +%T) (at $SECONDS s) sm90 fp16 rc ${PIPESTATUS[0]}"; grep "^D=" $OUT/sm90_fp16.txt
timeout 80 python3 bench/sm90_vs_cudnn.py "${libs[@]}" --bench --dims 201,217,234 \
  --seqlens 2048 --dtype bf16 --shape 16,16 --causal 0 --rounds 10 --same-outputs --no-flash \
  --json "$OUT/sm90_bf16.json" 2>&1 | grep -v -e Warning -e "cudnn failed" -e scaled_dot > $OUT/sm90_bf16.txt
echo "== $(date +%T) (at $SECONDS s) sm90 bf16 rc ${PIPESTATUS[0]}"; grep "^D=" $OUT/sm90_bf16.txt
sm80_gpu_check_wait
sm80_gpu_check_run 590 "${CHECKS[@]}"
(cd "$OUT" && tar czf logs.tgz --remove-files gc gc-build.txt shim90-*.log b-*.log)
