#!/bin/bash
# Twenty-seventh session, call 6 (timing only, not landed): the Hopper forward's window kernels
# with per-score tests without branches (helper s27-fwdwin, bench/results/sm90-s27-fwdwin-prep/),
# D = 128 bucket shims old (main) / new in turns, outputs bit for bit; SDPA has no sliding window,
# so no peer column.
source scripts/gpu-env.sh 2>/dev/null
W=$(mktemp -d); tar -xJf build-fwdwin128/carry/shims.tar.xz -C $W; ls $W
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
S="python3 bench/sm90_vs_cudnn.py --bench --no-flash --dims 128 --seqlens 512,1024,2048,4096 --causal 0 --rounds 10"
timeout 120 $S --lib old=$W/cur.so --lib new=$W/win.so --window=256,0 --same-outputs > $OUT/w256.txt 2>&1; echo "w256 rc $?"
timeout 100 $S --lib new=$W/win.so --lib old=$W/cur.so --window=256,0 >> $OUT/w256.txt 2>&1; echo "w256 reversed rc $?"
timeout 120 $S --lib old=$W/cur.so --lib new=$W/win.so --window=1024,64 --same-outputs > $OUT/w1024.txt 2>&1; echo "w1024 rc $?"
grep -E "^D=|same outputs|rror" $OUT/w256.txt $OUT/w1024.txt | cut -c1-220 | head -40
