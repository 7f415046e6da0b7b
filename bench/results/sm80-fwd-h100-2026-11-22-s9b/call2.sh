#!/bin/bash
# Ninth session, second round (h9-fwd80b), device call 2 (H100): the library's sm80 forward GPU
# tests on the working tree (sm80 only, sm_90a, fp16 + bf16, 64/128/192/256), then
# compute-sanitizer memcheck and racecheck on small cases: d180_causal (the 192 tile's halved
# 12-step class, first run here), the packed D = 129 cases (the 2-byte-row kernel's halved 9-step
# class, v8) and d72_causal.
#   source scripts/gpu-env.sh; OUT=<dir> bash bench/results/sm80-fwd-h100-2026-11-22-s9b/call2.sh
set -o pipefail
build=build-h9fwd80b-device; tests=$build/tests/cuda/fattn_cuda_tests
cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DFATTN_CUDA=ON \
  -DFATTN_CUDA_FAMILIES=sm80 "-DFATTN_CUDA_HEAD_DIMS=64;128;192;256" \
  "-DFATTN_CUDA_DTYPES=fp16;bf16" -DFATTN_CUDA_ARCHS=90a -DFATTN_CUDA_RESOURCE_USAGE=ON \
  -DFATTN_BUILD_TOOLS=OFF > $OUT/lib-configure.log 2>&1 || tail -5 $OUT/lib-configure.log
timeout 200 ninja -C $build -j 16 fattn_cuda_tests > $OUT/lib-build.log 2>&1
echo "build rc $?; kernels with spills: $(grep -cE '[1-9][0-9]* bytes spill stores' $OUT/lib-build.log)"
timeout 90 $tests --gtest_filter='*cuda_sm80*:*Sm80ForwardShapes*' > $OUT/gtest.log 2>&1
echo "gtest rc $?: $(grep -cE '^\[       OK' $OUT/gtest.log) ok"
grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" $OUT/gtest.log | head -12
small='HeadGroups/*d180_causal*:Misaligned/*d129_packed*:HeadGroups/*d72_causal*'
for tool in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 1 $tests --gtest_filter="$small" \
    > $OUT/gtest-$tool.log 2>&1
  echo "$tool rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/gtest-$tool.log | tail -1)" \
    "$(grep -cE '^\[       OK' $OUT/gtest-$tool.log) ok"
done
