#!/bin/bash
# h11-fwd90c: scheduler groups for the masked D = 64 forward at small N, timed in turns inside the
# lead's device call. Carry: build-h11c/carry (shims.tar.xz, 3.3 MB: bench/sm90_timeline_shim.cu
# built without the timeline, bf16 D = 64 / 128 / 256, by build-shims.sh in this folder):
#   cur = HEAD 4d6ec8e's src (v19), m = HEAD + candidate-m.patch, r3 = HEAD + candidate-r3.patch
# (host-side only: the groups of masked D = 64 launches of <= 6 / <= 8 query tiles per pair).
# 1. bench/sm90_vs_cudnn.py in turns, cur / m / r3 / cuDNN, D = 64 causal N = 512, 1k, 2k, 4k and
#    non-causal 512 (2k, 4k and non-causal: identical launches, the controls), twice, run 2 in
#    reverse order; every lib's outputs compared bit for bit with the first lib's.
# 2. ncu at D = 64 N = 512 causal (duration, DRAM bytes), if the time left allows.
# Writes only $OUT/fwd90c.tar.xz (logs, JSON, ncu CSV) and $OUT/fwd90c-summary.md. ~60 s, at most
# ~90 s.
#   bash bench/results/sm90-fwd-h100-2026-11-23-s11c/call-command.sh
# (The steps are bench/sm90_candidates_call.sh's, with this call's contestants and points.)
cd "$(dirname "$0")/../../.." || exit 1
CAND_TAG=fwd90c CAND_BUILD=build-h11c CAND_NAMES="m r3" CAND_RUN_S=35 \
  CAND_POINTS="64,512,1;64,1024,1;64,2048,1;64,4096,1;64,512,0" CAND_NCU_POINTS="64,512,1" \
  CAND_TITLE="h11-fwd90c: D = 64 scheduler groups (cur = HEAD, m = candidate-m.patch, r3 = candidate-r3.patch)" \
  exec bash bench/sm90_candidates_call.sh
