#!/bin/bash
# h14-fwd90 (v29), call 1: a share of the first key tile's exp2 on the FMA pipe
# (TileShape::first_softmax_fma_exp2_period; candidate-P4.patch period 4 at D = 64 / 128 / 256,
# candidate-P8.patch period 8), the epilogue's LSE under the last P·V (TileShape::lse_under_last_pv,
# candidate-L.patch) and both (candidate-P4L.patch = branch h14-fwd90) against HEAD cf12913 (cur),
# cuDNN in turns. Carry: .deps, build-h14fwd90/carry (shims.tar.xz from two runs of
# bench/sm90_candidates_build.sh; tree.tar.xz = git archive of the branch, whose tests are built
# (ptxas -v into build.log) and run here).
# 1. the sm90 test build of the candidate tree (background, -j12);
# 2. bench/sm90_candidates_call.sh, twice: cur / P4 / P8 / L / P4L / cuDNN in turns, twice each
#    (run 2 reversed), at the six N = 512 points and five controls (1k, 2k, 8k);
# 3. the sm90 GPU tests of P4L; memcheck + racecheck on four cases over the changed kernels.
source scripts/gpu-env.sh; set -o pipefail
B=$PWD/build-h14fwd90
L=$OUT/steps.log
T=/tmp/cand; mkdir -p $T && tar -xJf $B/carry/tree.tar.xz -C $T
cd $T && source bench/sm90_call_steps.sh && sm90_build_tests $B "64;128;256" -DCMAKE_CUDA_FLAGS=-Xptxas=-v && cd - > /dev/null
P="64,512,0;64,512,1;128,512,0;128,512,1;256,512,0;256,512,1;128,1024,0;64,1024,1;128,2048,0;256,2048,1;128,8192,0"
for tag in fwd90a fwd90b; do
  CAND_TAG=$tag CAND_BUILD=$B CAND_NAMES="P4 P8 L P4L" CAND_RUN_S=60 CAND_POINTS="$P" \
    CAND_NCU_POINTS="128,512,0;64,512,0" \
    CAND_TITLE="h14-fwd90: first key tile's exp2 1/4 (P4) or 1/8 (P8) on the FMA pipe, LSE under the last PV (L), both (P4L) against HEAD (cur)" \
    bash bench/sm90_candidates_call.sh > /dev/null 2>&1
  echo "candidates $tag rc $? at ${SECONDS} s" >> $L
done
cd $T && sm90_run_tests $B $L 150 40 \
  '*ragged_keys_d128_gqa*:*idle_consumers_d64_one_row*:*first_tile_d256_causal_aligned*:*large_scale_d128*'
tar -czf $OUT/logs.tgz -C $OUT build.log tests.log sanitizers.log && rm -f $OUT/build.log $OUT/tests.log $OUT/sanitizers.log
cat $L
