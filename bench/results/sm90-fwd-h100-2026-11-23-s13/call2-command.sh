#!/bin/bash
# h13-fwd90 (v26), call 2: why sa lost at 2k / 8k non-causal in call 1. Contestants in turns with
# cuDNN, twice (run 2 reversed): cur (HEAD), sa (call 1's candidate), smem (HEAD's kernels, the
# 128 bucket's launches reserving sa's 226 KB of shared memory: sa.patch with kScoresAhead forced
# off; all 24 kernels' SASS identical to cur's), saw (sa with the next tile's scores waited for
# before the epilogue, i.e. the overlap removed; same key loop as sa: variant-saw-vs-sa.diff).
# Carry: .deps, build-h13fwd90/carry (shims.tar.xz; smem / saw link cur's d64 / d256 objects).
set -o pipefail
CAND_TAG=fwd90b CAND_BUILD=build-h13fwd90 CAND_NAMES="sa smem saw" CAND_RUN_S=28 \
  CAND_POINTS="128,512,0;128,8192,0;128,2048,0;128,1024,1" \
  CAND_NCU_POINTS="128,512,0" \
  CAND_TITLE="h13-fwd90 call 2: sa, smem (shared memory alone), saw (no overlap) against HEAD (cur)" \
  bash bench/sm90_candidates_call.sh
