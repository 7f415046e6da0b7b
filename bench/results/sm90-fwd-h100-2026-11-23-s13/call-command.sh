#!/bin/bash
# h13-fwd90 (v26), call 1: scores ahead (TileShape::scores_ahead, the unmasked full-width D = 128
# kernel: the next tile's first Q·Kᵀ issued after the last P·V, under the epilogue) against HEAD.
# Carry: .deps, build-h13fwd90/carry (shims.tar.xz: cur = git archive HEAD, sa = cur +
# candidate-sa.patch, by bench/sm90_candidates_build.sh). The working tree holds sa.
# 1. the sm90 test build of the working tree, buckets 64 / 128 / 256 (background, -j12);
# 2. bench/sm90_candidates_call.sh: cur / sa / cuDNN in turns, twice (run 2 reversed), D = 128
#    N = 512 / 1k causal and not (causal: unchanged kernels, 33 KB more shared memory), 2k / 8k
#    non-causal (controls);
# 3. the sm90 GPU tests; memcheck and racecheck on the new path (CTAs of 3-4 tiles and of one,
#    one key tile per tile) and on a causal Nq != Nk case of the same bucket.
source scripts/gpu-env.sh; set -o pipefail
B=build-h13fwd90
L=$OUT/steps.log
source bench/sm90_call_steps.sh
sm90_build_tests $B "64;128;256"
CAND_TAG=fwd90 CAND_BUILD=$B CAND_NAMES="sa" CAND_RUN_S=45 \
  CAND_POINTS="128,512,0;128,512,1;128,1024,0;128,1024,1;128,2048,0;128,8192,0" \
  CAND_NCU_POINTS="128,512,0" \
  CAND_TITLE="h13-fwd90: scores ahead (sa = candidate-sa.patch) against HEAD (cur)" \
  bash bench/sm90_candidates_call.sh > /dev/null 2>&1
echo "candidates rc $? at ${SECONDS} s" >> $L
sm90_run_tests $B $L 100 60 \
  '*scores_ahead_d120_four_tiles_per_cta:*one_key_tile_many_tiles:*keys_ascending_d128_more_keys'
cat $L
