#!/bin/bash
# h18-d192n64 call (prepared in the eighteenth session, for the next): the D = 192 bucket with
# 64-key tiles (candidate-n64.patch: TileConfig<192>.block_n 96 -> 64; candidate-n64s3.patch: the
# same with a third K/V stage, 48 + 3 x 48 KB) in turns against main's 96-key kernels (cur) and
# cuDNN at D = 192 N = 512 / 1k / 2k causal and not, 4k non-causal, B·N = 16k, bf16 and fp16;
# the 25 cases of h17-d192c's check_d192.py first; memcheck of both candidates.
#   D192N64_BUILD=build-h18-d192n64 bash bench/results/sm90-d192n64-2026-11-24-s18/call.sh
#   run tool: carry ["build-h18-d192n64/carry"], timeout_s 125
CAND_TAG=d192n64 CAND_BUILD=${D192N64_BUILD:-build-h18-d192n64} CAND_NAMES="n64 n64s3" \
  CAND_POINTS="192,512,1;192,512,0;192,1024,1;192,1024,0;192,2048,1;192,2048,0;192,4096,0" \
  CAND_CHECK=bench/results/sm90-d192c-2026-11-23-s17/check_d192.py CAND_MEMCHECK="n64 n64s3" \
  CAND_TITLE="h18-d192n64 call: cur (96-key tiles) / n64 / n64s3 (64-key tiles, 2 / 3 stages) / cuDNN, D = 192" \
  exec bash bench/sm90_candidates_call.sh
