#!/bin/bash
# s22 call 4: candidates on v40 (d5059ff) at 192, each in turns beside v40 and FA2's backward:
# lines (v41: DqReductionsByLine in a Large 192 table, 8-row rounds; the working tree), r16 (the
# same with 16-row rounds), lh (lines + StagedEpilogue), e (StagedEpilogue + the spread dQ
# reductions in the NoMask kernels); then the library's sm80 GPU tests (the working tree: v41) and
# both sanitizers.
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
declare -A carry=([lines]=build-s22lines/carry [r16]=build-s22lines/r16/carry
                  [lh]=build-s22lh/carry [e]=build-s22e/carry)
for v in "${!carry[@]}"; do
  xz -dc "${carry[$v]}/new.so.xz" > /tmp/new_$v.so || exit 1
  xz -dc "${carry[$v]}/old.so.xz" > /tmp/old_$v.so || exit 1
done
sm80_gpu_check_start "${SM80_CHECKS[@]}"
f="16,16,fp16"
turns() {  # variant points seconds [flags]
  local v=$1 points=$2 seconds=$3; shift 3
  timeout "$seconds" python3 bench/sm80_bwd_turns.py --old /tmp/old_$v.so --new /tmp/new_$v.so \
    --runs 3 --points "$points" "$@" 2>&1 | grep -v Warning | tee -a "$OUT/turns_$v.txt"
  echo "== $(date +%T) (at $SECONDS s) variant $v $* done"
}
cand="192,2048,0,$f;192,2048,1,$f;144,2048,0,$f;192,512,1,64,16,fp16;192,8192,0,4,16,fp16"
turns lines "$cand;176,2048,0,$f;129,2048,0,$f;192,2048,0,16,16,bf16" 90
for v in r16 lh e; do turns $v "$cand" 70; done
turns lines "192,2048,0,$f;192,2048,1,$f" 40 --deterministic
sm80_gpu_check_wait
sm80_gpu_check_run 585 "${SM80_CHECKS[@]}"
(cd "$OUT" && tar czf gc.tgz --remove-files gc gc-build.txt)
