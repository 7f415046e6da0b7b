#!/bin/bash
# Tenth session, second round (h10-odd80b), the one device call (H100): the v10 table (D = 65..72
# unmasked on HalvedUnmaskedNarrowForwardConfig<128>) timed in turns beside the table before v10
# (shim variant 30) and PyTorch's flash, bf16, with 64 and 128 in the same invocation; the table
# alone in fp16 (the point); controls (N = 512 / 8k, B·N = 16384); then the library's
# sm80 forward GPU tests and compute-sanitizer memcheck + racecheck on one case of the new kernel.
#   source scripts/gpu-env.sh; LIB=<shim> OUT=<dir> bash bench/results/sm80-odd-h100-2026-11-23-s10b/call.sh
set -o pipefail
export PYTHONUNBUFFERED=1
S=bench/sm80_vs_torch.py
L=${LIB:?shim}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
turns() {  # name, points, variants, timeout
  timeout "$4" python3 $S --lib $L --turns "$2" ${3:+--turn-variants $3} --json $OUT/turns-$1.json \
    > $OUT/turns-$1.log 2>&1
  echo "== $1 rc $?"; grep -E "^D=|Error|error" $OUT/turns-$1.log | sed -E 's/; window-nothing[^;]*//'
}
points() {  # dtype, dims, N, causal, ",B,H" (default 16, 16; "" = B·N = 16384, H·D = 2048)
  local out=""
  for D in $2; do out+="$D,$3,$4,$1${5-,16,16};"; done
  echo "${out%;}"
}
turns bf16 "$(points bf16 '72 80 128 64' 2048 0)" 30 50
turns fp16 "$(points fp16 '72 80 128 64' 2048 0)" "" 35
turns controls "$(points bf16 '72 80' 512 0 '');$(points bf16 '72 80' 8192 0 '');$(points bf16 '72' 2048 1)" 30 60
# The library's GPU tests on the working tree, sm80 only, the 128 bucket (the only one changed).
build=build-h10oddb-device; tests=$build/tests/cuda/fattn_cuda_tests
cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DFATTN_CUDA=ON \
  -DFATTN_CUDA_FAMILIES=sm80 -DFATTN_CUDA_HEAD_DIMS=128 \
  "-DFATTN_CUDA_DTYPES=fp16;bf16" -DFATTN_CUDA_ARCHS=90a -DFATTN_CUDA_RESOURCE_USAGE=ON \
  -DFATTN_BUILD_TOOLS=OFF > $OUT/lib-configure.log 2>&1 || tail -5 $OUT/lib-configure.log
timeout 150 ninja -C $build -j 16 fattn_cuda_tests > $OUT/lib-build.log 2>&1
echo "build rc $?; kernels with spills: $(grep -cE '[1-9][0-9]* bytes spill stores' $OUT/lib-build.log)"
timeout 60 $tests --gtest_filter='*cuda_sm80*:*Sm80ForwardShapes*' > $OUT/gtest.log 2>&1
echo "gtest rc $?: $(grep -cE '^\[       OK' $OUT/gtest.log) ok"
grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/gtest.log | head -12
grep -E "^\[       OK.*(NarrowTiles/.*d(65|66|72)|d72)" $OUT/gtest.log
small='NarrowTiles/*d72_17_queries_1013_keys*'
for tool in memcheck racecheck; do
  timeout 45 compute-sanitizer --tool $tool --error-exitcode 1 $tests --gtest_filter="$small" \
    > $OUT/gtest-$tool.log 2>&1
  echo "$tool rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/gtest-$tool.log | tail -1)" \
    "$(grep -cE '^\[       OK' $OUT/gtest-$tool.log) ok"
done
