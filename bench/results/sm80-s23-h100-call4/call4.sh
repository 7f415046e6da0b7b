#!/bin/bash
# Twenty-third session, call 4: the two desk candidates of this session in turns beside main
# (ededf19) and FA2, then the sm80 GPU tests and sanitizers of the merged tree (main + s23-wide +
# s23-narrow):
#  - w (s23-wide, bench/results/sm80-s23-wide-prep/NOTES.md): class 8 of the 128 bucket's wide
#    windows on the table's two-row tile, K's outside columns zeroed in shared memory;
#  - n (s23-narrow, bench/results/sm80-s23-narrow-prep/NOTES.md): the narrow tiles at D = 80 / 200.
# Carry .deps, build-s23wide/carry, build-s23narrow/carry.
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
declare -A carry=([w]=build-s23wide/carry [n]=build-s23narrow/carry)
for v in "${!carry[@]}"; do
  xz -dc "${carry[$v]}/new.so.xz" > /tmp/new_$v.so || exit 1
  xz -dc "${carry[$v]}/old.so.xz" > /tmp/old_$v.so || exit 1
done
sm80_gpu_check_start --families sm80 --dtypes "fp16;bf16" --no-bench
f="16,16,fp16"
turns() {  # variant points seconds
  timeout "$3" python3 bench/sm80_fwd_turns.py --old /tmp/old_$1.so --new /tmp/new_$1.so \
    --runs 3 --points "$2" 2>&1 | grep -v Warning | tee -a "$OUT/turns_fwd_$1.txt"
  echo "== $(date +%T) (at $SECONDS s) variant $1 done"
}
turns w "113,2048,0,$f;121,2048,0,$f;107,2048,0,$f;115,2048,0,$f;121,2048,1,$f;113,2048,0,16,16,bf16;110,2048,0,$f;122,2048,0,$f;105,2048,0,$f;128,2048,0,$f" 100
turns n "200,2048,0,16,16,fp16;200,2048,1,16,16,fp16;200,512,0,64,16,fp16;200,2048,0,16,16,bf16;208,2048,0,16,16,fp16;193,2048,0,16,16,fp16;256,2048,0,16,16,fp16;80,2048,0,16,16,fp16;80,512,0,64,16,fp16;80,2048,0,16,16,bf16;72,2048,0,16,16,fp16;80,2048,1,16,16,fp16;128,2048,0,16,16,fp16" 110
sm80_gpu_check_wait
sm80_gpu_check_run 590 --families sm80 --dtypes "fp16;bf16" --no-bench
(cd "$OUT" && tar czf gc.tgz --remove-files gc gc-build.txt)
