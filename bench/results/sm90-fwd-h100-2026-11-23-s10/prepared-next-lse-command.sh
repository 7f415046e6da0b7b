#!/bin/bash
# Prepared for a later session (not run): lse-fast.patch (the epilogue's LSE and 1/sum with
# MUFU.LG2 / MUFU.RCP instead of logf's polynomial and the IEEE division's subroutine; both rows'
# quad shuffles together) against HEAD's kernels and cuDNN, in turns, twice. Needs on this side:
# build-h10cur = `git archive <base> src include`, build-h10lse = the same tree with
# lse-fast.patch applied (patch -p1). Carry: .deps, build-h10cur, build-h10lse.
source scripts/gpu-env.sh; set -o pipefail
S=bench/sm90_vs_cudnn.py
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
SM90_SOURCE_ROOT=$PWD/build-h10lse bench/sm90_build.sh build-h10/lse 8 > $OUT/build_lse.log 2>&1 &
SM90_SOURCE_ROOT=$PWD/build-h10cur bench/sm90_build.sh build-h10/cur 8 > $OUT/build_cur.log 2>&1 &
wait
grep -h "spill" build-h10/lse/ptxas.log | sort | uniq -c
timeout 60 python3 $S --lib lse=build-h10/lse/libsm90shim.so --check > $OUT/check.log 2>&1
echo "check rc $?: $(grep -E 'check:' $OUT/check.log)"
B="--bench --no-flash --dims 128,64,256 --seqlens 512,1024,4096 --rounds 10"
timeout 120 python3 $S --lib lse=build-h10/lse/libsm90shim.so --lib cur=build-h10/cur/libsm90shim.so $B --json $OUT/bench1.json > $OUT/bench1.log 2>&1
echo "bench1 rc $?"; grep -E "^\||geometric" $OUT/bench1.log
timeout 120 python3 $S --lib cur=build-h10/cur/libsm90shim.so --lib lse=build-h10/lse/libsm90shim.so $B --json $OUT/bench2.json > $OUT/bench2.log 2>&1
echo "bench2 rc $?"; grep -E "^\||geometric" $OUT/bench2.log
