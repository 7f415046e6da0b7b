#!/bin/bash
# The one device call (h12-bwd80b): expects the carried tarball build-h12bwd80b/c/bins.tar.xz
# (plain/libsm80bwdtimeline.so from build-shim.sh; lib/fattn_cuda_tests + libfattn from the
# candidate tree). det/default of the table and of variant 231 in turns at the 18 points, then
# the sm80 backward tests on the candidate library, then memcheck + racecheck on one
# deterministic NoMask full-width case (the new epilogue at 256 in the deterministic mode).
mkdir -p /tmp/c && tar -C /tmp/c -xJf build-h12bwd80b/c/bins.tar.xz
P1="64,1024,0;64,1024,1;128,1024,0;128,1024,1;256,1024,0;256,1024,1"
P4="64,4096,0;64,4096,1;128,4096,0;128,4096,1;256,4096,0;256,4096,1"
P16="128,16384,0;128,16384,1;256,16384,0;256,16384,1;64,16384,0;64,16384,1"
CAND_DIR=/tmp/c CAND_VARIANTS= CAND_NCU_S=0 CAND_DET_VARIANT=231 CAND_DET_S=${DET_S:-170} \
  CAND_DET_POINTS="$P1;$P4;$P16" CAND_TEST_LIBS=lib CAND_TEST_FILTER='*cuda_sm80*:*Sm80Backward*' \
  CAND_TESTS_S=110 CAND_SANITIZE_CASES='*Sm80Backward*strided_nomask_d256*' CAND_SANITIZER_S=40 \
  bash bench/sm80_bwd_candidates_run.sh
