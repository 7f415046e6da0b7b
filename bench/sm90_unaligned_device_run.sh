#!/usr/bin/env bash
# One GPU-machine call for the Hopper forward on 2-byte-aligned rows read heads as columns
# (src/cuda/sm90/heads_as_columns.hpp): one CMake build (sm80 + sm90, buckets 128/192/256,
# library + GPU tests + Python extension), then
#   1. the GPU tests of tests/cuda/test_sm90_unaligned.cpp;
#   2. compute-sanitizer memcheck and racecheck on two small heads-as-columns cases;
#   3. bench/compare.py's head-dim section (fp16, B=16, H=16, N=2048, forward, non-causal) for
#      D = 128, 129, 136, 144, 192: fattn auto / cuda_sm90 / cuda_sm80 beside PyTorch's flash and
#      cuDNN in one process, twice (the spread between the two is the noise);
#   4. the other cuda_sm90 forward checks (test_sm90_forward.cpp, the cuda_sm90 part of the
#      shared matrix; backward left out), last: their kernels' SASS is unchanged.
# Logs go to $OUT/unaligned90-logs.tgz, a summary to stdout. From the repository root:
#   source scripts/gpu-env.sh; bench/sm90_unaligned_device_run.sh
set -u
OUT="${OUT:?set OUT to the folder for the logs}"
SWEEP_HEAD_DIMS="${1:-128,129,136,144,192}"
BUILD=build-unaligned90
LOGS=/tmp/unaligned90-logs  # packed into $OUT after every step, so a run cut short keeps its logs
mkdir -p "$LOGS"
TESTS="$BUILD/tests/cuda/fattn_cuda_tests"
SANITIZER="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
step() {
  tar -czf "$OUT/unaligned90-logs.tgz" -C /tmp unaligned90-logs
  echo "== $(date +%T) [$SECONDS s] $*"
}

step "gtest here: $(ls -d /usr/include/gtest /usr/lib/x86_64-linux-gnu/cmake/GTest 2>&1 | tr '\n' ' ')"
step configure
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFATTN_CUDA=ON \
  "-DFATTN_CUDA_FAMILIES=sm80;sm90" "-DFATTN_CUDA_HEAD_DIMS=128;192;256" \
  "-DFATTN_CUDA_DTYPES=fp16;bf16" -DFATTN_CUDA_ARCHS=90a -DFATTN_CUDA_RESOURCE_USAGE=ON \
  -DFATTN_BUILD_PYTHON=ON -DFATTN_BUILD_TOOLS=OFF > "$LOGS/configure.log" 2>&1 ||
  { tail -20 "$LOGS/configure.log"; exit 1; }
step build
timeout 210 ninja -C "$BUILD" -j "$(nproc)" fattn_cuda_tests _fattn > "$LOGS/build.log" 2>&1 ||
  { grep -B2 -A8 -m3 "error" "$LOGS/build.log"; tail -5 "$LOGS/build.log"; }
grep -E "Compiling entry|registers|spill" "$LOGS/build.log" > "$LOGS/ptxas.log"
echo "kernels with spills: $(grep -cE '[1-9][0-9]* bytes spill stores' "$LOGS/ptxas.log")"

step tests
timeout 50 "$TESTS" --gtest_filter='*Sm90Unaligned*' > "$LOGS/tests-unaligned.log" 2>&1
echo "heads-as-columns tests exit $?"
grep -E "^\[  (FAILED|PASSED|SKIPPED)|tests ran|Failure|Expected|Which is|error" \
  "$LOGS/tests-unaligned.log" | head -30

step memcheck
SMALL='HeadsAsColumns/Sm90Unaligned.ForwardMatchesReference/d129_fp16_n17:HeadsAsColumns/Sm90Unaligned.ForwardMatchesReference/d65_fp16_sliced'
timeout 40 "$SANITIZER" --tool memcheck --error-exitcode 1 --print-limit 20 "$TESTS" \
  --gtest_filter="$SMALL" > "$LOGS/memcheck.log" 2>&1
echo "memcheck exit $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" "$LOGS/memcheck.log" | head -5
step racecheck
timeout 50 "$SANITIZER" --tool racecheck --error-exitcode 1 --print-limit 20 "$TESTS" \
  --gtest_filter="$SMALL" > "$LOGS/racecheck.log" 2>&1
echo "racecheck exit $?"
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$LOGS/racecheck.log" | head -5

step bench
PACKAGE="$(mktemp -d)"
cp -r python/fattn "$PACKAGE/" && cp "$BUILD"/python/_fattn*.so "$PACKAGE/fattn/"
for run in 1 2; do
  (cd "$LOGS" && PYTHONPATH="$PACKAGE" timeout 45 python3 "$OLDPWD/bench/compare.py" \
    --sections head-dim --sweep-head-dims "$SWEEP_HEAD_DIMS" \
    --fattn-backends auto,cuda_sm90,cuda_sm80 --sdpa-backends flash,cudnn --no-plot \
    --warmup-ms 10 --rep-ms 60 --out "$LOGS/headdim-run$run") > "$LOGS/bench-run$run.log" 2>&1
  echo "bench run $run exit $?"; tail -22 "$LOGS/bench-run$run.log"
done

step "other sm90 forward tests"
timeout 40 "$TESTS" --gtest_filter='*Sm90*:*cuda_sm90*-*ackward*:*Sm90Unaligned*' --gtest_brief=1 \
  > "$LOGS/tests-sm90.log" 2>&1
echo "other sm90 forward tests exit $?"
grep -E "^\[  (FAILED|PASSED)|tests ran" "$LOGS/tests-sm90.log" | head -20
step done
