#!/bin/bash
# h14-fwd80 call 2 (H100): RescalePastThreshold on every aligned sm80 forward tile (the tables at
# 64 / 128 / 192 / 256 and the narrow tiles; the staged tiles unchanged) against HEAD in turns
# (OLD / NEW: every sm80 forward instance, sm_90a) and PyTorch's flash; meanwhile the sm80 library
# (all head dims, fp16 + bf16) and its tests build from the candidate tree, then the sm80 forward
# tests, memcheck and racecheck on FullWidth, RescalePastThreshold and the D = 72 NarrowTiles.
#   source scripts/gpu-env.sh; C=build-h14fwd80/carry2 OUT=.. bash .../call2.sh
set -o pipefail
export PYTHONUNBUFFERED=1
C=${C:?carry dir}
T14=$PWD/bench/results/sm80-fwd-h100-2026-11-23-s13b/turns14.py
src=/tmp/v15tree; build=/tmp/v15build; tests=$build/tests/cuda/fattn_cuda_tests
mkdir -p $src && tar xzf $C/tree.tgz -C $src
xz -dc $C/old.so.xz > /tmp/old.so && xz -dc $C/new.so.xz > /tmp/new.so
( cmake -S $src -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DFATTN_CUDA=ON \
    -DFATTN_CUDA_FAMILIES=sm80 "-DFATTN_CUDA_HEAD_DIMS=64;128;192;256" \
    "-DFATTN_CUDA_DTYPES=fp16;bf16" -DFATTN_CUDA_ARCHS=90a -DFATTN_CUDA_RESOURCE_USAGE=ON \
    -DFATTN_BUILD_TOOLS=OFF > $OUT/lib-configure.log 2>&1 &&
  timeout 260 ninja -C $build -j 14 fattn_cuda_tests > $OUT/lib-build.log 2>&1
  echo $? > $OUT/lib-build.rc ) &
bpid=$!
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
echo "== $(date +%T) turns"
f16="16,16,fp16"; b16="16,16,bf16"
timeout 200 python3 $T14 --old /tmp/old.so --new /tmp/new.so --runs 5 --json $OUT/turns.json \
  --points "72,2048,0,$f16;128,2048,0,$f16;80,2048,0,$f16;96,2048,0,$f16;136,2048,0,$f16;\
192,2048,0,$f16;200,2048,0,$f16;256,2048,0,$f16;64,2048,0,$f16;72,2048,1,$f16;128,2048,1,$f16;\
64,512,0;64,512,1;64,4096,0;128,512,0;128,512,1;128,4096,0;128,4096,1;128,16384,0;\
256,512,0;256,512,1;256,4096,0;256,4096,1;192,2048,0,$b16" 2>&1 | grep -v Warning
echo "== $(date +%T) waiting for the library build"
wait $bpid
echo "build rc $(cat $OUT/lib-build.rc); kernels with spills:" \
  "$(grep -cE '[1-9][0-9]* bytes spill stores' $OUT/lib-build.log)"
timeout 90 $tests --gtest_filter='*cuda_sm80*:*Sm80Forward*:*Sm80Misaligned*' > $OUT/gtest.log 2>&1
echo "== $(date +%T) gtest rc $?: $(grep -cE '^\[       OK' $OUT/gtest.log) ok;" \
  "$(grep -E '^\[  (PASSED|FAILED)' $OUT/gtest.log | tr '\n' ' ')"
grep -E '^\[  FAILED|Failure|error' $OUT/gtest.log | head -20
for tool in memcheck racecheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 1 $tests \
    --gtest_filter='FullWidth/*:RescalePastThreshold/*:NarrowTiles/*d72*' > $OUT/gtest-$tool.log 2>&1
  echo "== $(date +%T) $tool rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/gtest-$tool.log | tail -1)" \
    "$(grep -cE '^\[       OK' $OUT/gtest-$tool.log) ok"
done
cd $OUT && tar czf logs.tgz lib-*.log gtest*.log && rm -f lib-*.log gtest*.log lib-build.rc
echo "== $(date +%T) done"
