#!/bin/bash
# h19-eupv80: D = 73..80 unmasked (UnmaskedNarrowForwardConfig<128>) with ExponentsUnderPv + RowMaxByPairs
# (KvSourcesInSharedMemory dropped: with it the tile spills 4-36 bytes on sm_90a), in turns beside main.
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
sm80_unpack_old_new build-s19-eupv80/carry || exit 1
f="16,16,fp16"
points="80,2048,0,$f;76,2048,0,$f;74,2048,0,$f;72,2048,0,$f;96,2048,0,$f;128,2048,0,$f;80,2048,1,$f"
points+=";80,2048,0,16,16,bf16;80,512,0,32,16,bf16;80,8192,0,2,16,bf16"
timeout 115 python3 bench/sm80_fwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 5 \
  --json $OUT/turns.json --points "$points" 2>&1 | grep -v Warning | tee $OUT/turns.txt
