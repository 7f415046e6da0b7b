#!/bin/bash
# h14-bwd80 call 1: the D = 64 backward beside FA2's under ncu (bf16, B·N = 16384, H·D = 2048; N = 1k
# and 4k, causal and not): sections + SASS source page by opcode, the counters (dQ reductions,
# shared-memory wavefronts), pre/postprocess split (rowpass), and the per-phase timeline at two
# points. Shims built locally from cf12913 (carried):
#   SM80_TIMELINE_ONLY_64=1 bench/sm80_bwd_timeline_build.sh build-h14bwd80/head 90a 2
P="64,1024,0;64,1024,1;64,4096,0;64,4096,1"
DIAG_DIR=build-h14bwd80/head DIAG_PROFILE="$P" DIAG_ROWPASS_POINTS="$P" \
  DIAG_TIMELINE_POINTS="64,1024,1;64,4096,0" DIAG_STEPS="ncu counters rowpass timeline" \
  DIAG_NCU_S=150 DIAG_COUNTERS_S=60 DIAG_ROWPASS_S=50 DIAG_TIMELINE_S=80 \
  timeout 340 bash bench/sm80_bwd_fa2_diagnosis.sh 2>&1 | tee $OUT/summary.txt
