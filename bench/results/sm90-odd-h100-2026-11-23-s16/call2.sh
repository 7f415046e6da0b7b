#!/bin/bash
# h16-odd90 call 2: (1) tma_probe: which TMA boxes sm_90a accepts (negative innermost
# coordinate, load and store; 56-column box layout; rank-5 word map with word -1); (2) the bench
# script's checks of the word-map sector kernels (new shim, every bucket); (3) old vs new in turns
# (odd_turns.py, 3 runs); (4) GPU tests of the sm90 forward width/sector cases; (5) memcheck.
# Carried: build-h16-odd90/c2/pack.tar.xz (shims old/new/v2, tests + libfattn, tma_probe).
set -o pipefail
source scripts/gpu-env.sh
C=build-h16-odd90/c2 R=/tmp/h16 S=bench/sm90_vs_cudnn.py
mkdir -p $R && tar xJf $C/pack.tar.xz -C $R && cp $C/odd_turns.py $R/
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$R/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
for c in 0 1 2 3 4; do timeout 20 $R/tma_probe $c; echo "  rc $?"; done > $OUT/probe.log 2>&1
cat $OUT/probe.log; echo "($SECONDS s)"
timeout 50 python3 $S --lib new=$R/new/libsm90shim.so --check > $OUT/check.log 2>&1
echo "check rc $? ($SECONDS s): $(grep -E 'check:' $OUT/check.log)"; grep -iE "FAIL|error" $OUT/check.log | head -5
timeout 75 python3 $R/odd_turns.py --lib new=$R/new/libsm90shim.so --lib old=$R/old/libsm90shim.so \
  --lib v2=$R/v2/libsm90shim.so --extra v2 --json $OUT/turns.json > $OUT/turns.log 2>&1
echo "turns rc $? ($SECONDS s)"; sed -n '/^| point/,$p' $OUT/turns.log; grep -iE "error|Traceback" $OUT/turns.log | head -3
timeout 50 $R/fattn_cuda_tests --gtest_filter='*Sm90Forward*sector*:*Sm90Forward*width80*:*Sm90Forward*width112*:*Sm90Forward*width144*:*Sm90Forward*width208*:*Sm90Forward*width224_d216*:*Sm90Forward*d136_decode*:*Sm90Forward*d72_padded*:*Sm90Forward*d200_padded*' > $OUT/gtest.log 2>&1
echo "gtest rc $? ($SECONDS s)"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|tests ran" $OUT/gtest.log | head -12
timeout 40 compute-sanitizer --tool memcheck $R/fattn_cuda_tests \
  --gtest_filter='*Sm90Forward*sector_d72*:*Sm90Forward*sector_d200_producer_stores*:*Sm90Forward*sector_d216_window*' > $OUT/memcheck.log 2>&1
echo "memcheck rc $? ($SECONDS s): $(grep -E 'ERROR SUMMARY' $OUT/memcheck.log | tail -1) $(grep -E '^\[  PASSED' $OUT/memcheck.log)"
