#!/bin/bash
# Ninth session, h9-fwd80, device call 2 (H100), after the table change (v7: head-group grid at
# 64/128/256, HalfLastStep at 72/136/200): the table timed in turns beside the v6 table (shim
# variant 10), the head-group sizes 2/4/8 (variants 6/7/8) and PyTorch's flash; the odd head
# dims in fp16 (the point); then the library's sm80 forward GPU tests and
# compute-sanitizer memcheck + racecheck on two small cases of each changed kernel.
#   source scripts/gpu-env.sh; LIB=<shim> OUT=<dir> bash bench/results/sm80-fwd-h100-2026-11-22-s9/call2.sh
set -o pipefail
export PYTHONUNBUFFERED=1
S=bench/sm80_vs_torch.py
L=${LIB:?shim}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
causal=""
for D in 64 128 256; do for N in 1024 4096 8192 16384; do causal+="$D,$N,1;"; done; done
timeout 150 python3 $S --lib $L --turns "${causal}128,4096,0" --turn-variants 10,6,7,8 \
  --json $OUT/turns-groups.json > $OUT/turns-groups.log 2>&1
echo "groups rc $?"; grep -E "^D=" $OUT/turns-groups.log | sed -E 's/; spread/\n    spread/'
odd=""
for D in 72 128 136 192 200 256; do odd+="$D,2048,0,bf16,16,16;"; done
timeout 40 python3 $S --lib $L --turns "${odd%;}" --turn-variants 10 \
  --json $OUT/turns-odd.json > $OUT/turns-odd.log 2>&1
echo "odd bf16 rc $?"; grep -E "^D=" $OUT/turns-odd.log | sed -E 's/; window-nothing.*; spread/; spread/'
odd=${odd%;}
timeout 40 python3 $S --lib $L --turns "${odd//bf16/fp16}" \
  --json $OUT/turns-odd-fp16.json > $OUT/turns-odd-fp16.log 2>&1
echo "odd fp16 rc $?"; grep -E "^D=" $OUT/turns-odd-fp16.log | sed -E 's/; window-nothing.*; spread/; spread/'
# The library's GPU tests on the working tree, sm80 only.
build=build-h9fwd-device; tests=$build/tests/cuda/fattn_cuda_tests
cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DFATTN_CUDA=ON \
  -DFATTN_CUDA_FAMILIES=sm80 "-DFATTN_CUDA_HEAD_DIMS=64;128;192;256" \
  "-DFATTN_CUDA_DTYPES=fp16;bf16" -DFATTN_CUDA_ARCHS=90a -DFATTN_CUDA_RESOURCE_USAGE=ON \
  -DFATTN_BUILD_TOOLS=OFF > $OUT/lib-configure.log 2>&1 || tail -5 $OUT/lib-configure.log
timeout 200 ninja -C $build -j 16 fattn_cuda_tests > $OUT/lib-build.log 2>&1
echo "build rc $?; kernels with spills: $(grep -cE '[1-9][0-9]* bytes spill stores' $OUT/lib-build.log)"
timeout 90 $tests --gtest_filter='*cuda_sm80*:*Sm80ForwardShapes*' > $OUT/gtest.log 2>&1
echo "gtest rc $?: $(grep -cE '^\[       OK' $OUT/gtest.log) ok"
grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" $OUT/gtest.log | head -12
small='HeadGroups/*d128_causal_gqa*:HeadGroups/*d256_causal*:HeadGroups/*d72_causal*:HeadGroups/*d136*'
for tool in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 1 $tests --gtest_filter="$small" \
    > $OUT/gtest-$tool.log 2>&1
  echo "$tool rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/gtest-$tool.log | tail -1)" \
    "$(grep -cE '^\[       OK' $OUT/gtest-$tool.log) ok"
done
