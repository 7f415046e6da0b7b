#!/bin/bash
# h11-fwd90d: D = 256 small-N masked launches (host-side candidates), timed in turns inside the
# lead's device call. Carry: build-h11d/carry (shims.tar.xz: bench/sm90_timeline_shim.cu built
# without the timeline, bf16 D = 64 / 128 / 256, by build-shims.sh in this folder):
#   cur  = HEAD 134511b's src (v20),
#   g33  = HEAD + candidate-g33.patch (D = 256 masked launches of <= 4 query tiles per pair:
#          groups of one grid round, 33 pairs at N = 512, instead of one pair),
#   c128 = HEAD + candidate-c128.patch (D = 256 masked launches of <= 8 query tiles per pair:
#          a grid of as few CTAs as take the same rounds, 128 for the sweep's 1,024 tiles).
# Kernels byte-identical to cur's in both (host code only).
# 1. bench/sm90_vs_cudnn.py in turns, cur / g33 / c128 / cuDNN, D = 256 causal N = 512, 1k, 2k
#    and non-causal 512 (2k and non-causal: identical launches in all three, the controls),
#    twice, run 2 in reverse order; every lib's outputs compared bit for bit with the first's.
# 2. ncu at D = 256 N = 512 causal and 1k causal (duration, DRAM bytes, grid), if time allows.
# Writes only $OUT/fwd90d.tar.xz (logs, JSON, ncu CSV) and $OUT/fwd90d-summary.md.
# ~40 s expected, at most ~90 s.
# (The steps are bench/sm90_candidates_call.sh's, with this call's contestants and points.)
cd "$(dirname "$0")/../../.." || exit 1
CAND_TAG=fwd90d CAND_BUILD=build-h11d CAND_NAMES="g33 c128" CAND_RUN_S=30 \
  CAND_POINTS="256,512,1;256,1024,1;256,2048,1;256,512,0" CAND_NCU_POINTS="256,512,1;256,1024,1" \
  CAND_TITLE="h11-fwd90d: D = 256 small-N launches (cur = HEAD, g33 = candidate-g33.patch, c128 = candidate-c128.patch)" \
  exec bash bench/sm90_candidates_call.sh
