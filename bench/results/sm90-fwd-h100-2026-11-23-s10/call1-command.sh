#!/bin/bash
# Call 1 (h10-fwd90): the co-resident shape (forced at every N: kCoResidentMaxSeqlenK raised in a
# copy of the tree) against HEAD's kernels (build-h10cur: `git archive HEAD src include`) and
# cuDNN, in turns, twice (second run in reverse order). Carry: .deps, build-h10cur.
source scripts/gpu-env.sh; set -o pipefail
S=bench/sm90_vs_cudnn.py
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm --format=csv,noheader
ls -d /usr/include/gtest /usr/lib/x86_64-linux-gnu/cmake/GTest 2>&1 | head -2
mkdir -p /tmp/co && cp -r src include /tmp/co/
sed -i 's/kCoResidentMaxSeqlenK = 1024;/kCoResidentMaxSeqlenK = 1LL << 40;/' /tmp/co/src/cuda/sm90/tile_config.hpp
grep -c "1LL << 40" /tmp/co/src/cuda/sm90/tile_config.hpp
SM90_SOURCE_ROOT=/tmp/co bench/sm90_build.sh build-h10/co 8 > $OUT/build_co.log 2>&1 &
SM90_SOURCE_ROOT=$PWD/build-h10cur bench/sm90_build.sh build-h10/cur 8 > $OUT/build_cur.log 2>&1 &
wait
tail -1 $OUT/build_co.log $OUT/build_cur.log
grep -h "spill" build-h10/co/ptxas.log | sort | uniq -c
timeout 60 python3 $S --lib co=build-h10/co/libsm90shim.so --check > $OUT/check.log 2>&1
echo "check rc $?: $(grep -E 'check:' $OUT/check.log)"; grep FAIL $OUT/check.log | head
B="--bench --no-flash --dims 128,64 --seqlens 512,1024,2048,4096 --rounds 10"
timeout 120 python3 $S --lib co=build-h10/co/libsm90shim.so --lib cur=build-h10/cur/libsm90shim.so $B --json $OUT/bench1.json > $OUT/bench1.log 2>&1
echo "bench1 rc $?"; grep -E "^\||geometric|GEMM" $OUT/bench1.log
timeout 120 python3 $S --lib cur=build-h10/cur/libsm90shim.so --lib co=build-h10/co/libsm90shim.so $B --json $OUT/bench2.json > $OUT/bench2.log 2>&1
echo "bench2 rc $?"; grep -E "^\||geometric|GEMM" $OUT/bench2.log
timeout 45 ncu --section LaunchStats --section Occupancy -k regex:forward_kernel -s 1 -c 1 python3 $S --lib build-h10/co/libsm90shim.so --profile 128,512,1 > $OUT/ncu_occ.log 2>&1
echo "ncu rc $?"; grep -E "Block Limit|Theoretical Occ|Achieved Occ|Registers Per|Dynamic Shared|Grid Size|Waves" $OUT/ncu_occ.log
