#!/bin/bash
# Twenty-third session, call 1: the prepared desk candidates measured and tested in one call.
#  - the 192 backward candidates (bench/results/sm80-bwd192-next-prep-2026-11-24-s22/NOTES.md):
#    c, ac, a, b2, each in turns beside v42 (13fdeee) and FA2's backward;
#  - the forward's wide windows at the 128 bucket (fwd-wide128's NOTES.md) beside the staged path;
#  - then the GPU tests and sanitizers of this tree (main + ac + fwd-wide128), the 192 backward,
#    shifted windows and wide windows.
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
declare -A carry=([a]=build-s23b192a/carry [b2]=build-s23b192b2/carry [c]=build-s23b192c/carry
                  [ac]=build-s23b192ac/carry [w]=build-s23wide128/carry)
for v in "${!carry[@]}"; do
  xz -dc "${carry[$v]}/new.so.xz" > /tmp/new_$v.so || exit 1
  xz -dc "${carry[$v]}/old.so.xz" > /tmp/old_$v.so || exit 1
done
FILTER='*Bucket192*:*ShiftedWindows*:*WideWindows*'
sm80_gpu_check_start --families sm80 --dtypes "fp16;bf16" --no-bench --filter "$FILTER"
f="16,16,fp16"
turns() {  # tool variant points seconds [flags]
  local tool=$1 v=$2 points=$3 seconds=$4; shift 4
  timeout "$seconds" python3 bench/sm80_${tool}_turns.py --old /tmp/old_$v.so --new /tmp/new_$v.so \
    --runs 3 --points "$points" "$@" 2>&1 | grep -v Warning | tee -a "$OUT/turns_${tool}_$v.txt"
  echo "== $(date +%T) (at $SECONDS s) $tool variant $v $* done"
}
cand="192,2048,0,$f;192,2048,1,$f;144,2048,0,$f;192,512,1,64,16,fp16;192,8192,0,4,16,fp16"
for v in ac c a b2; do turns bwd $v "$cand" 65; done
turns bwd ac "176,2048,0,$f;129,2048,0,$f;192,2048,0,16,16,bf16" 45
turns bwd ac "192,2048,0,$f;192,2048,1,$f" 40 --deterministic
turns fwd w "97,2048,0,$f;105,2048,0,$f;113,2048,0,$f;121,2048,0,$f;110,2048,0,$f;122,2048,0,$f;97,2048,1,$f;121,2048,1,$f;105,2048,0,16,16,bf16;89,2048,0,$f;128,2048,0,$f" 90
sm80_gpu_check_wait
sm80_gpu_check_run 590 --families sm80 --dtypes "fp16;bf16" --no-bench --filter "$FILTER"
(cd "$OUT" && tar czf gc.tgz --remove-files gc gc-build.txt)
