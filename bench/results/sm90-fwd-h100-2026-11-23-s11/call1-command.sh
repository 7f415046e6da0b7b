#!/bin/bash
# h11-fwd90, call 1: the first key tile's coverage ("new": D = 128 first_tile_coverage, D = 64
# first_tile_mask_split; the working tree's src) and "cov64" (new plus D = 64 first_tile_coverage,
# its masked kernels decoding by divisions: the only form ptxas fit without spills) against the
# kernels before this work ("cur": c478299) and cuDNN, in turns, twice (second run reversed).
# Carry: .deps, build-h11 (build-h11/{cur,new,cov64}/{src,include}).
source scripts/gpu-env.sh; set -o pipefail
S=bench/sm90_vs_cudnn.py
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
ls /usr/include/gtest /usr/lib/x86_64-linux-gnu/cmake/GTest > $OUT/gtest_check.txt 2>&1; echo "gtest ls rc $?"
for v in cur new cov64; do
  SM90_SOURCE_ROOT=$PWD/build-h11/$v bench/sm90_build.sh build-h11/b/$v 5 > $OUT/build_$v.log 2>&1 &
done
wait
for v in cur new cov64; do tail -n 1 $OUT/build_$v.log; grep -h "spill" build-h11/b/$v/ptxas.log | sort | uniq -c; done
for v in new cov64; do
  timeout 60 python3 $S --lib $v=build-h11/b/$v/libsm90shim.so --check > $OUT/check_$v.log 2>&1
  echo "check $v rc $?: $(grep -E 'check:' $OUT/check_$v.log)"
done
B="--bench --no-flash --dims 128,64 --seqlens 512,1024,2048,4096 --rounds 8"
L="--lib cur=build-h11/b/cur/libsm90shim.so --lib new=build-h11/b/new/libsm90shim.so --lib cov64=build-h11/b/cov64/libsm90shim.so"
LR="--lib cov64=build-h11/b/cov64/libsm90shim.so --lib new=build-h11/b/new/libsm90shim.so --lib cur=build-h11/b/cur/libsm90shim.so"
timeout 120 python3 $S $L $B --json $OUT/ab1.json > $OUT/ab1.log 2>&1
echo "ab1 rc $?"; grep -E "^D=|GEMM" $OUT/ab1.log
timeout 120 python3 $S $LR $B --json $OUT/ab2.json > $OUT/ab2.log 2>&1
echo "ab2 rc $?"; grep -E "^D=|GEMM" $OUT/ab2.log
