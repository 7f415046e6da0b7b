#!/bin/bash
# For the next session: s30-bwd256dq (2-CTA clusters summing the 256 table's dQ partials over
# distributed shared memory) and its e2 variant, timed in turns beside this tree and FA2 with
# bench/sm80_bwd_turns.py (shims of the 256 bucket, sm_90a). Run with timeout_s 600.
source scripts/gpu-env.sh 2>/dev/null
R=bench/results/sm80-s30-bwd256dq
ROOT=$PWD
pack() { (cd $OUT && tar czf results.tgz --exclude=results.tgz . 2>/dev/null); echo "== $1 at $SECONDS s"; }
strip() { python3 -c "
import re,sys; t=open(sys.argv[1]).read()
print(''.join(p for p in re.split(r'(?m)^(?=diff --git )', t) if p.startswith('diff --git') and ' b/bench/results/' not in p.split(chr(10))[0]), end='')" "$1"; }
for v in new e2; do rm -rf /tmp/$v && mkdir -p /tmp/$v && tar --exclude='./build*' -cf - . | tar -xf - -C /tmp/$v; done
strip $R/candidate.patch > /tmp/dq.patch
(cd /tmp/new && patch -p1 -s < /tmp/dq.patch) && (cd /tmp/e2 && patch -p1 -s < /tmp/dq.patch && patch -p1 -s < $ROOT/$R/e2-on-candidate.patch) || exit 1
for v in new e2; do (cd /tmp/$v && bash bench/sm80_old_new_build.sh /tmp/b-$v . "256" 6 bwd > /tmp/b-$v.log 2>&1) & done
bash bench/sm80_old_new_build.sh /tmp/b-old . "256" 4 bwd > /tmp/b-old.log 2>&1; wait
tail -1 /tmp/b-*.log; cp /tmp/b-*.log $OUT/
P='256,4096,0,4,8,bf16;256,16384,0,1,8,bf16;256,1024,0,16,8,bf16;256,2048,0,8,8,fp16;256,4096,1,4,8,bf16'
python3 bench/sm80_bwd_turns.py --old /tmp/b-old/new/new.so --new /tmp/b-new/new/new.so --points "$P" --json $OUT/turns_new.json > $OUT/turns_new.txt 2>&1; tail -8 $OUT/turns_new.txt
pack "turns new"
python3 bench/sm80_bwd_turns.py --old /tmp/b-old/new/new.so --new /tmp/b-e2/new/new.so --points "$P" --json $OUT/turns_e2.json > $OUT/turns_e2.txt 2>&1; tail -8 $OUT/turns_e2.txt
pack "turns e2"
