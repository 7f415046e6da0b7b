#!/bin/bash
# s25 call 7: the Hopper forward at N = 16k (and 4k), causal and not, over the odd / packed head
# dims that issue #6's D = 64 / 128 / 256 sweep does not cover: is any other launch as far off as
# the sector-box causal launches were before v36? Current main's kernels (shim built here).
source scripts/gpu-env.sh 2>/dev/null
bench/sm90_build.sh /tmp/bcur 16 > $OUT/sm90-build.log 2>&1; tail -1 $OUT/sm90-build.log
echo "spills: $(grep -cE '[1-9][0-9]* bytes spill' /tmp/bcur/ptxas.log)"
P16='72,16384,1;80,16384,1;96,16384,1;105,16384,1;112,16384,1;129,16384,1;144,16384,1;160,16384,1;161,16384,1;192,16384,1;200,16384,1;234,16384,1;240,16384,1'
timeout 200 python3 bench/sm90_vs_cudnn.py --lib cur=/tmp/bcur/libsm90shim.so --bench --no-flash --rounds 5 \
  --layout bshd --shape 4,16 --dtype bf16 --points "$P16" --json "$OUT/c16k.json" 2>&1 \
  | grep -v -e Warning -e "cudnn failed" -e "F.scaled" | tail -17
P16N=$(echo "$P16" | sed 's/,1;/,0;/g; s/,1$/,0/')
timeout 200 python3 bench/sm90_vs_cudnn.py --lib cur=/tmp/bcur/libsm90shim.so --bench --no-flash --rounds 5 \
  --layout bshd --shape 4,16 --dtype bf16 --points "$P16N" --json "$OUT/n16k.json" 2>&1 \
  | grep -v -e Warning -e "cudnn failed" -e "F.scaled" | tail -17
