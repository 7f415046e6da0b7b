#!/bin/bash
# s25 call 5: the sector-box causal one-pair-group bound at 64 and 1024 query tiles (N = 8k, all),
# beside old (main) and new (bound 16), packed fp16 B = 16 H = 16 (B = 4 at 8k / 16k).
source scripts/gpu-env.sh 2>/dev/null
for t in old new; do xz -dc build-s25-h136c/$t.so.xz > /tmp/$t.so || exit 1; done
for b in 64 1024; do
  mkdir -p /tmp/t$b && tar xzf s25trees/t32.tgz -C /tmp/t$b
  sed -i "s/\.sector_causal_one_pair_groups_max_m_blocks = 16}/.sector_causal_one_pair_groups_max_m_blocks = $b}/" /tmp/t$b/src/cuda/sm90/tile_config.hpp
  grep -c "sector_causal_one_pair_groups_max_m_blocks = $b}" /tmp/t$b/src/cuda/sm90/tile_config.hpp
  (SM90_SOURCE_ROOT=/tmp/t$b bench/sm90_build.sh /tmp/b$b 8 > $OUT/build$b.log 2>&1; tail -1 $OUT/build$b.log;
   echo "spills $b: $(grep -cE '[1-9][0-9]* bytes spill' /tmp/b$b/ptxas.log)") &
done
wait
L=(--lib old=/tmp/old.so --lib new=/tmp/new.so --lib b64=/tmp/b64/libsm90shim.so --lib b1024=/tmp/b1024/libsm90shim.so)
timeout 200 python3 bench/sm90_vs_cudnn.py "${L[@]}" --bench --same-outputs --no-flash --rounds 10 \
  --layout bshd --shape 16,16 --dtype fp16 --points '136,4096,1;152,4096,1;136,8192,1;152,8192,1' \
  --json "$OUT/big16.json" 2>&1 | grep -v -e Warning -e "cudnn failed" -e "F.scaled" | tail -9
timeout 200 python3 bench/sm90_vs_cudnn.py "${L[@]}" --bench --same-outputs --no-flash --rounds 10 \
  --layout bshd --shape 4,16 --dtype fp16 --points '136,8192,1;136,16384,1;152,16384,1;104,16384,1;216,16384,1' \
  --json "$OUT/big4.json" 2>&1 | grep -v -e Warning -e "cudnn failed" -e "F.scaled" | tail -10
