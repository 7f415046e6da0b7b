#!/bin/bash
# h17-d64f call (measured in the eighteenth session with this call's earlier stand-alone form,
# the same steps; now a preset of bench/sm90_candidates_call.sh): D = 64 tile shapes
# (candidate-m128.patch: 128 x 128, two consumers; candidate-m256.patch: 256 x 64, four
# consumers; NOTES.md, HANG.md) in turns against main's 192 x 128 (cur) and cuDNN at D = 64
# N = 512 / 1k / 2k, causal and not, bf16 and fp16; check_d64.py's 22 cases first, then memcheck.
#   D64_BUILD=build-h17-d64f [D64_NAMES="m256"] bash bench/results/sm90-d64-2026-11-23-s17/call.sh
#   run tool: carry ["build-h17-d64f/carry"], timeout_s 125 (shims: build.sh)
names=${D64_NAMES:-m128 m256}
CAND_TAG=d64 CAND_BUILD=${D64_BUILD:-build-h17-d64f} CAND_NAMES="$names" \
  CAND_POINTS="64,512,0;64,512,1;64,1024,0;64,1024,1;64,2048,0;64,2048,1" \
  CAND_CHECK=bench/results/sm90-d64-2026-11-23-s17/check_d64.py CAND_MEMCHECK="$names" \
  CAND_TITLE="h17-d64f call: cur / $names / cuDNN, D = 64" \
  exec bash bench/sm90_candidates_call.sh
