#!/bin/bash
# s25 call 4: the one-pair causal groups of sector-box launches bounded at 32 query tiles (N = 4k)
# instead of 16, beside old (main) and new (bound 16), packed fp16 B = 16 H = 16.
source scripts/gpu-env.sh 2>/dev/null
for t in old new; do xz -dc build-s25-h136c/$t.so.xz > /tmp/$t.so || exit 1; done
mkdir -p /tmp/t32 && tar xzf s25trees/t32.tgz -C /tmp/t32
sed -i 's/\.sector_causal_one_pair_groups_max_m_blocks = 16}/.sector_causal_one_pair_groups_max_m_blocks = 32}/' /tmp/t32/src/cuda/sm90/tile_config.hpp
grep -c "sector_causal_one_pair_groups_max_m_blocks = 32" /tmp/t32/src/cuda/sm90/tile_config.hpp
SM90_SOURCE_ROOT=/tmp/t32 bench/sm90_build.sh /tmp/b32 16 > $OUT/build32.log 2>&1; tail -1 $OUT/build32.log
echo "spills: $(grep -cE '[1-9][0-9]* bytes spill' /tmp/b32/ptxas.log)"
timeout 300 python3 bench/sm90_vs_cudnn.py --lib old=/tmp/old.so --lib new=/tmp/new.so --lib new32=/tmp/b32/libsm90shim.so \
  --bench --same-outputs --no-flash --rounds 10 --layout bshd --shape 16,16 --dtype fp16 \
  --points '136,4096,1;152,4096,1;136,8192,1;136,1024,1;136,2048,1;144,4096,1;136,4096,0' \
  --json "$OUT/b32.json" 2>&1 | grep -v -e Warning -e "cudnn failed" -e "F.scaled" | tee "$OUT/b32.txt" | tail -14
