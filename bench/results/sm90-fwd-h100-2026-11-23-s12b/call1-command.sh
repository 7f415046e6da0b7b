#!/bin/bash
# h12-fwd90b, call 1. Carry: .deps, build-h12fwd90b/carry (shims.tar.xz: bench/sm90_candidates_build.sh,
# cur = HEAD 4b02a89's src (v21), asc64 = cur + candidate-asc64.patch; timeline.tar.xz: cur's src
# with FATTN_SM90_TIMELINE).
# 1. bench/sm90_candidates_call.sh: cur / asc64 / cuDNN in turns, twice (run 2 reversed) at D = 64
#    N = 512 / 1k causal, controls D = 64 2k causal, 512 non-causal, D = 256 512 causal; ncu at
#    D = 64 512 / 1k causal.
# 2. bench/sm90_timeline.py (HEAD, instrumented) at D = 256 N = 512 causal and non-causal, D = 128
#    and 64 N = 512 non-causal, D = 256 N = 2k causal (steady-state reference); records come back
#    for the offline per-step analysis (analyze_steps.py) and bench/sm90_timeline_tiles.py.
source scripts/gpu-env.sh; set -o pipefail
B=build-h12fwd90b
CAND_TAG=fwd90b64 CAND_BUILD=$B CAND_NAMES="asc64" CAND_RUN_S=35 \
  CAND_POINTS="64,512,1;64,1024,1;64,2048,1;64,512,0;256,512,1" \
  CAND_NCU_POINTS="64,512,1;64,1024,1" \
  CAND_TITLE="h12-fwd90b: D = 64 keys ascending in even rounds (cur = HEAD 4b02a89, asc64 = candidate-asc64.patch)" \
  bash bench/sm90_candidates_call.sh > /tmp/cand.log 2>&1
echo "candidates rc $? at ${SECONDS} s"; grep -E "^\|" $OUT/fwd90b64-summary.md | head -20
W=/tmp/tlw; mkdir -p $W /tmp/tl
tar -xJf $B/carry/timeline.tar.xz -C $W && tar -xJf $B/carry/shims.tar.xz -C $W
timeout 110 python3 bench/sm90_timeline.py --timeline $W/timeline.so --plain $W/cur.so --out /tmp/tl \
  --reps 6 --points "256,512,1;256,512,0;128,512,0;64,512,0;256,2048,1" > /tmp/tl/tl.log 2>&1
echo "timeline rc $? at ${SECONDS} s"; grep -E "TFLOP/s in turns|bitwise|rel error" /tmp/tl/tl.log | head
timeout 40 python3 bench/sm90_timeline_tiles.py /tmp/tl > /tmp/tl/tiles.log 2>&1; echo "tiles rc $?"
rm -f /tmp/tl/trace-*.json; cp /tmp/cand.log /tmp/tl/
tar -cJf $OUT/tl.tar.xz -C /tmp/tl . ; ls -la $OUT
