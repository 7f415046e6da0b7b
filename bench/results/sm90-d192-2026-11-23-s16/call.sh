#!/bin/bash
# h16-d192 call (measured in the seventeenth session with this call's earlier stand-alone form,
# the same steps; now a preset of bench/sm90_candidates_call.sh): the 192 bucket's candidates
# (candidate-lazy.patch, candidate-lazypin.patch; NOTES.md) in turns against main's D = 192
# kernel (cur) and cuDNN, D = 192 N = 1k / 4k / 16k (B = 16384 / N, H = 10), causal and not,
# bf16 and fp16; first check_d192.py's 15 cases, then memcheck of both candidates.
#   D192_BUILD=build-h16-d192 bash bench/results/sm90-d192-2026-11-23-s16/call.sh
#   run tool: carry ["build-h16-d192/carry"], timeout_s 125 (shims: build.sh)
CAND_TAG=d192 CAND_BUILD=${D192_BUILD:-build-h16-d192} CAND_NAMES="lazy lazypin" CAND_RUN_S=30 \
  CAND_POINTS="192,1024,0;192,1024,1;192,2048,0;192,4096,0;192,4096,1;192,16384,0;192,16384,1" \
  CAND_CHECK=bench/results/sm90-d192-2026-11-23-s16/check_d192.py CAND_MEMCHECK="lazy lazypin" \
  CAND_TITLE="h16-d192 call: cur / lazy / lazypin / cuDNN, D = 192" \
  exec bash bench/sm90_candidates_call.sh
