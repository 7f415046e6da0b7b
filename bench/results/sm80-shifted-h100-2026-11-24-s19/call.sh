#!/bin/bash
# h19-sw: shifted windows for the 128 bucket (D = 65..89 with rows not 16-byte aligned) and for
# 4- / 8-byte-aligned rows in both buckets, in turns beside main (sm80 forward, packed tensors).
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
sm80_unpack_old_new build-s19-sw/carry || exit 1
f="16,16,fp16"
points=""
for D in 74 76 73 78 65 86 89 88 72 130 132 134 129 136; do points+="$D,2048,0,$f;"; done
points+="74,2048,1,$f;130,2048,1,$f;76,2048,0,16,16,bf16;74,512,0,32,16,bf16"
timeout 150 python3 bench/sm80_fwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 3 \
  --json $OUT/turns.json --points "$points" 2>&1 | grep -v Warning | tee $OUT/turns.txt
