#!/bin/bash
# h18-n64 call (eighteenth session; run as measured in call-h100-s18/ with the script's earlier,
# stand-alone form, same steps): the D = 256 bucket with 64-key tiles (candidate-n64.patch:
# TileConfig<256>.block_n 80 -> 64, nothing else) in turns against main's 80-key kernels (cur)
# and cuDNN at D = 256 N = 512 / 1k / 2k causal and not, 4k non-causal (where v7 saw 64-key tiles
# lose), B·N = 16k, bf16 and fp16; the 22 cases of check_d256.py first; memcheck of n64.
#   N64_BUILD=build-h18-n64 bash bench/results/sm90-d256n64-2026-11-24-s18/call.sh
#   run tool: carry ["build-h18-n64/carry"], timeout_s 125
CAND_TAG=n64 CAND_BUILD=${N64_BUILD:-build-h18-n64} CAND_NAMES="n64" \
  CAND_POINTS="256,512,1;256,512,0;256,1024,1;256,1024,0;256,2048,1;256,2048,0;256,4096,0" \
  CAND_CHECK=bench/results/sm90-d256n64-2026-11-24-s18/check_d256.py CAND_MEMCHECK="n64" \
  CAND_TITLE="h18-n64 call: cur (80-key tiles) / n64 (64-key tiles) / cuDNN, D = 256" \
  exec bash bench/sm90_candidates_call.sh
