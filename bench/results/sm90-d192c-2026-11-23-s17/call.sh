#!/bin/bash
# h17-d192c call (measured in the eighteenth session with this call's earlier stand-alone form,
# the same steps; now a preset of bench/sm90_candidates_call.sh): the 192 bucket's small-N causal
# candidates (candidate-*.patch, NOTES.md) in turns against main's D = 192 kernel (cur) and cuDNN:
# D = 192 causal N = 512 / 1k / 2k / 4k and non-causal 1k (B = 16384 / N, H = 10), bf16 and fp16,
# the first pass comparing every output with cur's bit for bit; check_d192.py's 25 cases first,
# memcheck of asck and ascc, ncu at 512 and 1k causal with the time left.
#   D192C_BUILD=build-h17-d192c bash bench/results/sm90-d192c-2026-11-23-s17/call.sh
#   run tool: carry ["build-h17-d192c/carry"], timeout_s 125 (shims: build.sh)
CAND_TAG=d192c CAND_BUILD=${D192C_BUILD:-build-h17-d192c} CAND_NAMES="opg asc asck ascc" \
  CAND_POINTS="192,512,1;192,1024,1;192,2048,1;192,4096,1;192,1024,0" \
  CAND_CHECK=bench/results/sm90-d192c-2026-11-23-s17/check_d192.py CAND_MEMCHECK="asck ascc" \
  CAND_NCU_POINTS="192,512,1;192,1024,1" \
  CAND_TITLE="h17-d192c call: cur / opg / asc / asck / ascc / cuDNN, D = 192" \
  exec bash bench/sm90_candidates_call.sh
