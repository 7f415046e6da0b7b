#!/bin/bash
# s25 call 9: candidate "P" (branch s25-onepair): every causal launch whose work width is not
# whole 64-column TMA boxes (partial last box, sector boxes, heads as columns) on one-pair
# groups, against main ("cur", from s25trees/cur.tgz) where only sector-box launches take them.
source scripts/gpu-env.sh 2>/dev/null
mkdir -p /tmp/cur && tar xzf s25trees/cur.tgz -C /tmp/cur
(SM90_SOURCE_ROOT=/tmp/cur bench/sm90_build.sh /tmp/bcur 8 > $OUT/b-cur.log 2>&1) &
bench/sm90_build.sh /tmp/bp 8 > $OUT/b-p.log 2>&1; wait
echo "spills: $(cat /tmp/bcur/ptxas.log /tmp/bp/ptxas.log | grep -cE '[1-9][0-9]* bytes spill')"
L=(--lib cur=/tmp/bcur/libsm90shim.so --lib P=/tmp/bp/libsm90shim.so --bench --same-outputs --no-flash --rounds 5)
run() { timeout 150 python3 bench/sm90_vs_cudnn.py "${L[@]}" "$@" 2>&1 | grep -v -e Warning -e "cudnn failed" -e "F.scaled" | grep -E "^\| [0-9]|geometric"; }
run --points '64,16384,1;128,16384,1;256,16384,1;192,16384,1;128,4096,1' --json $OUT/p_sweep.json
run --layout bshd --shape 4,16 --dtype bf16 --json $OUT/p_16k.json \
  --points '72,16384,1;80,16384,1;96,16384,1;112,16384,1;144,16384,1;160,16384,1;200,16384,1;240,16384,1;105,16384,1;129,16384,1;161,16384,1;234,16384,1'
run --layout bshd --shape 4,16 --dtype bf16 --json $OUT/p_4k.json --points '80,4096,1;112,4096,1;144,4096,1;200,4096,1;240,4096,1;129,4096,1'
run --layout bshd --shape 16,16 --dtype bf16 --json $OUT/p_2k.json --points '80,2048,1;112,2048,1;144,2048,1;200,2048,1;240,2048,1;129,2048,1;105,2048,1'
