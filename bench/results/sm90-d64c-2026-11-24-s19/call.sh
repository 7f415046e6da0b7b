#!/bin/bash
# h19-d64c call (nineteenth session): D = 64 causal at small N on 128 x 128 tiles (candidate-m128.patch,
# the seventeenth session's m128: two consumers, D = 128's small-N scheduling) in turns against
# main's 192-row kernels (cur) and cuDNN; the non-causal points compare m128 with main's 256 x 64
# fit shape (v33) and are there to read, not to take. check_d64.py's cases first; memcheck of m128.
#   D64C_BUILD=build-s19-d64c bash bench/results/sm90-d64c-2026-11-24-s19/call.sh
#   run tool: carry ["build-s19-d64c/carry"], timeout_s 125
CAND_TAG=d64c CAND_BUILD=${D64C_BUILD:-build-s19-d64c} CAND_NAMES="m128" \
  CAND_POINTS="64,512,1;64,1024,1;64,2048,1;64,512,0;64,1024,0" \
  CAND_CHECK=bench/results/sm90-d64-2026-11-23-s17/check_d64.py CAND_MEMCHECK="m128" \
  CAND_TITLE="h19-d64c call: cur (192-row tiles; 256 x 64 unmasked fit) / m128 (128 x 128) / cuDNN, D = 64" \
  exec bash bench/sm90_candidates_call.sh
