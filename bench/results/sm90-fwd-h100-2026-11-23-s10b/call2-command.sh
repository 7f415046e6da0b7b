#!/bin/bash
# Lead, tenth session, second A/B call: after the session's sweep read D = 128 non-causal 8k/16k
# 6-9 % below the ninth sweep, three builds in turns with cuDNN, twice (second run reversed):
# "old" (19309b5, before v17), "cur" (v17: multiply-shift decode + LSE on the MUFU), "dec" (v17
# with divided_tile_decode in every bucket: the LSE change alone). Carry: .deps, build-l10cur
# (old), build-l10new (cur), build-l10dec (dec).
source scripts/gpu-env.sh; set -o pipefail
S=bench/sm90_vs_cudnn.py
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
SM90_SOURCE_ROOT=$PWD/build-l10cur bench/sm90_build.sh build-l10/old 6 > $OUT/build_old.log 2>&1 &
SM90_SOURCE_ROOT=$PWD/build-l10new bench/sm90_build.sh build-l10/cur 5 > $OUT/build_cur.log 2>&1 &
SM90_SOURCE_ROOT=$PWD/build-l10dec bench/sm90_build.sh build-l10/dec 5 > $OUT/build_dec.log 2>&1 &
wait
for f in old cur dec; do tail -n 1 $OUT/build_$f.log; done
B="--bench --no-flash --dims 128,64 --seqlens 512,1024,4096,16384 --rounds 8"
L="--lib old=build-l10/old/libsm90shim.so --lib cur=build-l10/cur/libsm90shim.so --lib dec=build-l10/dec/libsm90shim.so"
LR="--lib dec=build-l10/dec/libsm90shim.so --lib cur=build-l10/cur/libsm90shim.so --lib old=build-l10/old/libsm90shim.so"
timeout 200 python3 $S $L $B --json $OUT/ab1.json > $OUT/ab1.log 2>&1
echo "ab1 rc $?"; grep -E "^\||geometric|GEMM" $OUT/ab1.log
timeout 200 python3 $S $LR $B --json $OUT/ab2.json > $OUT/ab2.log 2>&1
echo "ab2 rc $?"; grep -E "^\||geometric|GEMM" $OUT/ab2.log
