#!/bin/bash
# The ninth session's D = 64 diagnosis (bench/results/sm80-bwd-h100-2026-11-22-s9b), kept as a
# preset of bench/sm80_bwd_fa2_diagnosis.sh, which generalised it to any head dim: ncu of our
# main kernel and FA2's at N = 16384 non-causal, the dQ reduction counters, and the per-phase
# timeline at N = 4k / 16k, causal and not. Expects (carried) the two timeline shims of
#   SM80_TIMELINE_ONLY_64=1 bench/sm80_bwd_timeline_build.sh build-h9bwd80b/tl 90a
# Usage: [D64_DIR=build-h9bwd80b/tl] [D64_STEPS="ncu timeline counters"]
#        [D64_VARIANT=641 (the shims' candidate instead of the table)] [D64_<STEP>_S=seconds]
#        bench/sm80_bwd_d64_diagnosis.sh
DIAG_DIR=${D64_DIR:-build-h9bwd80b/tl} \
DIAG_STEPS=${D64_STEPS:-ncu timeline counters} \
DIAG_VARIANT=${D64_VARIANT:-0} \
DIAG_PROFILE="64,16384,0" \
DIAG_TIMELINE_POINTS="64,4096,0;64,4096,1;64,16384,0;64,16384,1" \
DIAG_NCU_S=${D64_NCU_S:-90} DIAG_COUNTERS_S=${D64_COUNTERS_S:-45} \
DIAG_TIMELINE_S=${D64_TIMELINE_S:-150} \
  exec bash "$(dirname "$0")/sm80_bwd_fa2_diagnosis.sh"
