#!/bin/bash
# h14-fwd80 call 1 (H100): D = 72 candidates in turns. OLD = HEAD's d128 fp16/bf16 instances,
# NEW = the candidate tree's (RescalePastThreshold on HalvedUnmaskedNarrowForwardConfig<128>)
# with variants14h.cu (bf16; 70 HEAD's D = 72 tile, 71 + RescalePastThreshold, 72 the same walk
# on 8 warps, 73 = 72 + rescale, 74 the D = 128 table + rescale, 75 D = 73..80 unmasked +
# rescale) and PyTorch's flash; meanwhile the sm80 d128 library and its tests build from the
# candidate tree, then the sm80 forward tests, memcheck and racecheck on the D = 72 cases.
#   source scripts/gpu-env.sh; C=build-h14fwd80/carry OUT=.. bash .../call1.sh
set -o pipefail
export PYTHONUNBUFFERED=1
C=${C:?carry dir}
T14=$PWD/bench/results/sm80-fwd-h100-2026-11-23-s13b/turns14.py
src=/tmp/v15tree; build=/tmp/v15build; tests=$build/tests/cuda/fattn_cuda_tests
mkdir -p $src && tar xzf $C/tree.tgz -C $src
xz -dc $C/old.so.xz > /tmp/old.so && xz -dc $C/new.so.xz > /tmp/new.so
( cmake -S $src -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DFATTN_CUDA=ON \
    -DFATTN_CUDA_FAMILIES=sm80 "-DFATTN_CUDA_HEAD_DIMS=128" "-DFATTN_CUDA_DTYPES=fp16;bf16" \
    -DFATTN_CUDA_ARCHS=90a -DFATTN_CUDA_RESOURCE_USAGE=ON -DFATTN_BUILD_TOOLS=OFF \
    > $OUT/lib-configure.log 2>&1 &&
  timeout 220 ninja -C $build -j 14 fattn_cuda_tests > $OUT/lib-build.log 2>&1
  echo $? > $OUT/lib-build.rc ) &
bpid=$!
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
echo "== $(date +%T) turns"
b16="16,16,bf16"; f16="16,16,fp16"
timeout 150 python3 $T14 --old /tmp/old.so --new /tmp/new.so --variants 70,71,72,73,74,75 \
  --runs 5 --json $OUT/turns.json --points "72,2048,0,$f16;128,2048,0,$f16;72,2048,0,$b16;\
128,2048,0,$b16;80,2048,0,$b16;72,512,0;72,8192,0;72,2048,1,$f16;128,512,0" 2>&1 | grep -v Warning
echo "== $(date +%T) waiting for the library build"
wait $bpid
echo "build rc $(cat $OUT/lib-build.rc); kernels with spills:" \
  "$(grep -cE '[1-9][0-9]* bytes spill stores' $OUT/lib-build.log)"
timeout 60 $tests --gtest_filter='*cuda_sm80*:*Sm80Forward*:*Sm80Misaligned*' > $OUT/gtest.log 2>&1
echo "== $(date +%T) gtest rc $?: $(grep -cE '^\[       OK' $OUT/gtest.log) ok;" \
  "$(grep -E '^\[  (PASSED|FAILED)' $OUT/gtest.log | tr '\n' ' ')"
grep -E '^\[  FAILED' $OUT/gtest.log | head -20
for tool in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 1 $tests \
    --gtest_filter='NarrowTiles/*d72*:NarrowTiles/*d65*' > $OUT/gtest-$tool.log 2>&1
  echo "== $(date +%T) $tool rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/gtest-$tool.log | tail -1)" \
    "$(grep -cE '^\[       OK' $OUT/gtest-$tool.log) ok"
done
cd $OUT && tar czf logs.tgz lib-*.log gtest*.log && rm -f lib-*.log gtest*.log lib-build.rc
echo "== $(date +%T) done"
