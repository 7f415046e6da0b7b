#!/bin/bash
# h19-sw256: shifted windows for the 256 bucket (D = 193..201 with rows off 16-byte words), in
# turns beside main (sm80 forward, packed tensors).
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
sm80_unpack_old_new build-s19-sw256/carry || exit 1
f="16,16,fp16"
points=""
for D in 193 194 196 197 201 200 208 256; do points+="$D,2048,0,$f;"; done
points+="196,2048,1,$f;201,2048,0,16,16,bf16"
timeout 120 python3 bench/sm80_fwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 3 \
  --json $OUT/turns.json --points "$points" 2>&1 | grep -v Warning | tee $OUT/turns.txt
