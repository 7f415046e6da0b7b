#!/bin/bash
# Twenty-fourth session, call 5, on the trial tree main + s24-bwdlanes + s24-bwd80:
# (1) backward v45 + v46 (s24-bwdlanes: the dQ line rounds' staging in fragment order, phase A's
#     XOR addresses as four phase registers; 256 bucket) in turns beside v44 (34e91a3) and FA2,
#     default and deterministic;
# (2) backward v47 (s24-bwd80: step classes 5 / 6 of the 128 bucket's full-width kernel, D =
#     65..96 with 16-byte rows) in turns beside main and FA2, default mode, and its split
#     variants A (plain 3 + 3 split) / B (+ untested phase A) at D = 80;
# (3) the trial tree's sm80 backward GPU tests (128 + 256 buckets, sm_80 and sm_90a code, so
#     ptxas reports spills for both) and both sanitizers.
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
CHECKS=(--families sm80 --dtypes "fp16;bf16" --no-bench --head-dims "128;256" --archs "80;90a"
        --filter '*Sm80Backward*:*cuda_sm80*')
sm80_gpu_check_start "${CHECKS[@]}"
unpack() { xz -dc "$1" > "$2" || exit 1; }
unpack build-s24bwdlanes/carry/old.so.xz /tmp/l-old.so; unpack build-s24bwdlanes/carry/new.so.xz /tmp/l-new.so
unpack build-s24bwd80/carry/old.so.xz /tmp/n-old.so; unpack build-s24bwd80/carry/new.so.xz /tmp/n-new.so
unpack build-s24bwd80/carryA/newA.so.xz /tmp/n-A.so; unpack build-s24bwd80/carryB/newB.so.xz /tmp/n-B.so
P256='256,4096,0,4,8,bf16;256,4096,1,4,8,bf16;256,1024,0,16,8,bf16;256,2048,0,16,16,fp16;256,16384,0,1,8,bf16'
P80='80,2048,0,16,16,fp16;72,2048,0,16,16,fp16;96,2048,0,16,16,fp16;80,2048,1,16,16,fp16;80,4096,0,4,16,bf16;128,2048,0,16,16,fp16'
turns() {  # name old new points [flags]
  local name=$1 old=$2 new=$3 points=$4; shift 4
  timeout 150 python3 bench/sm80_bwd_turns.py --old "$old" --new "$new" --runs 3 --points "$points" "$@" \
    > "$OUT/turns_$name.txt" 2>&1
  echo "== $(date +%T) (at $SECONDS s) $name rc $?"; grep "^D=" "$OUT/turns_$name.txt" | cut -c1-200
}
turns lanes /tmp/l-old.so /tmp/l-new.so "$P256"
turns lanes_det /tmp/l-old.so /tmp/l-new.so "$P256" --deterministic
turns bwd80 /tmp/n-old.so /tmp/n-new.so "$P80"
turns bwd80_A /tmp/n-old.so /tmp/n-A.so '80,2048,0,16,16,fp16;96,2048,0,16,16,fp16'
turns bwd80_B /tmp/n-old.so /tmp/n-B.so '80,2048,0,16,16,fp16;96,2048,0,16,16,fp16'
sm80_gpu_check_wait
sm80_gpu_check_run 590 "${CHECKS[@]}"
(cd "$OUT" && tar czf gc.tgz --remove-files gc gc-build.txt)
