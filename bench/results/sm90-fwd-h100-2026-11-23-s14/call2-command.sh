#!/bin/bash
# h14-fwd90 (v29), call 2: F = branch h14-fwd90 a4a3065 (candidate-F.patch: lse_under_last_pv at
# D = 128 / 256, the last P·V's wait after the tile's branch; D = 64 and the producer-store
# kernels unchanged) against HEAD cf12913 (cur), cuDNN in turns. Carry: .deps,
# build-h14fwd90/carry (shims.tar.xz: cur.so, F.so = cur's objects with F's d128 / d256 bf16 TUs;
# tree.tar.xz = git archive of the branch).
# 1. the sm90 test build of the branch (background, -j12, ptxas -v into build.log);
# 2. bench/sm90_candidates_call.sh twice (each: cur / F / cuDNN in turns, twice, run 2 reversed;
#    the second at the six points F changes most), within the shared budget's 230 s;
# 3. the sm90 GPU tests of F; memcheck + racecheck on four cases over the changed kernels.
source scripts/gpu-env.sh; set -o pipefail
B=$PWD/build-h14fwd90
L=$OUT/steps.log
T=/tmp/cand; mkdir -p $T && tar -xJf $B/carry/tree.tar.xz -C $T
cd $T && source bench/sm90_call_steps.sh && sm90_build_tests $B "64;128;256" -DCMAKE_CUDA_FLAGS=-Xptxas=-v && cd - > /dev/null
P="128,512,0;128,512,1;256,512,0;256,512,1;256,1024,1;256,2048,1;256,4096,1;128,1024,1;128,2048,0;128,8192,0;64,512,0"
P2="128,512,0;128,512,1;256,512,1;256,1024,1;256,2048,1;256,4096,1"
for tag in fwd90c fwd90d; do
  [ $tag = fwd90d ] && P=$P2
  CAND_TAG=$tag CAND_BUILD=$B CAND_NAMES="F" CAND_RUN_S=40 CAND_POINTS="$P" \
    CAND_NCU_POINTS="256,512,1;128,512,0" \
    CAND_TITLE="h14-fwd90: the epilogue's LSE under the last PV at D = 128 / 256 (F) against HEAD (cur)" \
    bash bench/sm90_candidates_call.sh > /dev/null 2>&1
  echo "candidates $tag rc $? at ${SECONDS} s" >> $L
done
cd $T && sm90_run_tests $B $L 150 40 \
  '*ragged_keys_d128_gqa*:*first_tile_d256_causal_aligned*:*keys_ascending_d128_causal_rounds*:*masked_tiles_between_d256*'
grep -h "spill" $OUT/build.log | sort | uniq -c > $OUT/spills.txt
tar -czf $OUT/logs.tgz -C $OUT build.log tests.log sanitizers.log && rm -f $OUT/build.log $OUT/tests.log $OUT/sanitizers.log
cat $L $OUT/spills.txt
