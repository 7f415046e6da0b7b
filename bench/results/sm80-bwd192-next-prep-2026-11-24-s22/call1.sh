#!/bin/bash
# Next session's call: the 192 candidates prepared at the desk (NOTES.md beside this file), each
# in turns beside main 13fdeee (v42) and FA2's backward: a (ScoreStatisticsAhead one ahead), b
# (DqRoundsInDkSteps, one round ahead), b2 (b with its interleave forced), c
# (DqLineRoundsLoadAhead), ac (a + c). Carry build-s23b192{a,b,b2,c,ac}/carry. Then the GPU
# tests of the tree checked out for the run (check out the winner's branch, bwd192-next-<x>,
# before the call): the 192 bucket's and the shifted windows' cases, both sanitizers.
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
declare -A carry=([a]=build-s23b192a/carry [b]=build-s23b192b/carry [b2]=build-s23b192b2/carry
                  [c]=build-s23b192c/carry [ac]=build-s23b192ac/carry)
for v in "${!carry[@]}"; do
  xz -dc "${carry[$v]}/new.so.xz" > /tmp/new_$v.so || exit 1
  xz -dc "${carry[$v]}/old.so.xz" > /tmp/old_$v.so || exit 1
done
sm80_gpu_check_start --families sm80 --dtypes "fp16;bf16" --no-bench \
  --filter '*Bucket192*:*ShiftedWindows*'
f="16,16,fp16"
turns() {  # variant points seconds [flags]
  local v=$1 points=$2 seconds=$3; shift 3
  timeout "$seconds" python3 bench/sm80_bwd_turns.py --old /tmp/old_$v.so --new /tmp/new_$v.so \
    --runs 3 --points "$points" "$@" 2>&1 | grep -v Warning | tee -a "$OUT/turns_$v.txt"
  echo "== $(date +%T) (at $SECONDS s) variant $v $* done"
}
cand="192,2048,0,$f;192,2048,1,$f;144,2048,0,$f;192,512,1,64,16,fp16;192,8192,0,4,16,fp16"
for v in c ac a b2 b; do turns $v "$cand" 70; done
turns c "176,2048,0,$f;129,2048,0,$f;192,2048,0,16,16,bf16" 50
turns c "192,2048,0,$f;192,2048,1,$f" 40 --deterministic
sm80_gpu_check_wait
sm80_gpu_check_run 585 --families sm80 --dtypes "fp16;bf16" --no-bench \
  --filter '*Bucket192*:*ShiftedWindows*'
(cd "$OUT" && tar czf gc.tgz --remove-files gc gc-build.txt)
