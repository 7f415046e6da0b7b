#!/bin/bash
# One call on the GPU machine for the Hopper backward (docs/design/sm90-backward.md): build
# pruned to sm80+sm90, D 64/128, fp16/bf16, sm_90a; the sm90 backward GPU tests and the shared
# suite's cuda_sm90 cases; memcheck and racecheck on small cases; then fwd+bwd TFLOP/s of
# cuda_sm90 / cuda_sm80 beside SDPA cuDNN and flash.
# Measured on an H100 (2026-11-22): build 29 s on 16 cores, the whole default run ~120 s.
# Usage (device call, carry [".deps"]):
#   bench/sm90_bwd_device_run.sh                 # every step
#   SM90_BWD_STEPS="build tests" bench/sm90_bwd_device_run.sh
#   SM90_BWD_STEPS="build ncu" bench/sm90_bwd_device_run.sh      # profile one backward (tuning)
#   SM90_BWD_STEPS="build variants_build ..." builds bench/sm90_bwd_variants.cu into $BUILD-variants
#   SM90_BWD_STEPS="... variants" SM90_BWD_AB="before/lib.so:0,3,4 variants/lib.so:0,2,3,4"
#       bench/sm90_bwd_device_run.sh   # bench/sm90_bwd_variants.py --bench on each carried shim
#       (e.g. one built from the previous commit beside the working tree's: an A/B in one call)
# Logs land in $OUT as each step ends (a call cut off at its limit still returns what finished).
set -o pipefail
source scripts/gpu-env.sh
export PYTHONUNBUFFERED=1
OUT=${OUT:-$PWD/sm90-bwd-out}
mkdir -p "$OUT"
BUILD=${SM90_BWD_BUILD:-build-bwd90-gpu}
STEPS=${SM90_BWD_STEPS:-build tests memcheck racecheck bench}
TESTS=$BUILD/tests/cuda/fattn_cuda_tests
# Small cases for the sanitizers: one key tile (both dQ splits), GQA, fully masked rows.
SMALL=${SM90_BWD_SMALL:-'Sm90/Sm90Backward.*one_key_tile*:Sm90/Sm90Backward.*causal_nq_gt_nk_d64*:Sm90/Sm90Backward.*gqa_d64*'}
# Head-dim buckets of the build (SM90_BWD_HEAD_DIMS="128;192;256" for the D = 256 backward beside
# the sm80 one at 192 and 256) and of the library bench (SM90_BWD_BENCH_DIMS=192,256).
HEAD_DIMS=${SM90_BWD_HEAD_DIMS:-64;128}
BENCH_DIMS=${SM90_BWD_BENCH_DIMS:-64,128}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
step_build() {
  local start=$SECONDS
  cmake -S . -B $BUILD -G Ninja -DCMAKE_BUILD_TYPE=Release -DFATTN_CUDA=ON \
    -DFATTN_CUDA_FAMILIES="sm80;sm90" -DFATTN_CUDA_HEAD_DIMS="$HEAD_DIMS" \
    -DFATTN_CUDA_DTYPES="fp16;bf16" -DFATTN_CUDA_ARCHS=90a > $OUT/cmake.log 2>&1 &&
    ninja -C $BUILD -j16 fattn_cuda_tests fattn_cuda_bench fattn > $OUT/build.log 2>&1
  local rc=$?
  echo "build rc $rc in $((SECONDS - start)) s"
  grep -E "error|spill|C75[0-9][0-9]" $OUT/build.log | head -10
  [ $rc -eq 0 ] || exit 1
}
step_tests() {
  # The targeted cases and selector checks first (a hang shows here, in 60 s), then the shared
  # suite's cuda_sm90 rows (forward and backward of every case the selector lets it take).
  # (150 s: the D = 256 cases' float64 references of 1013-row problems take seconds each.)
  timeout 150 $TESTS --gtest_filter='*Sm90Backward*' > $OUT/gtest.log 2>&1
  local rc=$?
  echo "sm90 backward gtest rc $rc: $(grep -cE '^\[       OK' $OUT/gtest.log) ok," \
    "$(grep -cE '^\[  FAILED  \]' $OUT/gtest.log) failed lines"
  grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure|Which is|dq|dk|dv" $OUT/gtest.log | head -30
  if [ $rc -eq 124 ]; then
    echo "HANG: the sm90 backward tests ran past 150 s; skipping the remaining steps"
    tail -5 $OUT/gtest.log
    exit 1
  fi
  timeout 120 $TESTS --gtest_filter='*cuda_sm90*' > $OUT/gtest-shared.log 2>&1
  echo "shared suite (cuda_sm90) rc $?: $(grep -cE '^\[       OK' $OUT/gtest-shared.log) ok," \
    "$(grep -cE '^\[  FAILED  \]' $OUT/gtest-shared.log) failed lines"
  grep -E "FAILED  \]" $OUT/gtest-shared.log | head -12
}
step_memcheck() {
  timeout 60 compute-sanitizer --tool memcheck $TESTS --gtest_filter="$SMALL" \
    > $OUT/memcheck.log 2>&1
  echo "memcheck rc $?: $(grep -E 'ERROR SUMMARY' $OUT/memcheck.log | tail -1)"
  grep -m5 -E "Invalid|out of bounds|Address" $OUT/memcheck.log
}
step_racecheck() {
  # The dS exchange between the consumer warpgroups and the stage ring are the hazards to watch.
  timeout 75 compute-sanitizer --tool racecheck $TESTS --gtest_filter="$SMALL" \
    > $OUT/racecheck.log 2>&1
  echo "racecheck rc $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $OUT/racecheck.log | tail -1)"
  grep -m5 -E "hazard|Race" $OUT/racecheck.log
}
step_bench() {
  timeout 150 python3 bench/sm90_bwd_vs_cudnn.py --bench-binary $BUILD/tests/cuda/fattn_cuda_bench \
    --head-dims $BENCH_DIMS --json $OUT/bench.json 2>&1 | tee $OUT/bench.log
  echo "bench rc $?"
}
step_variants_check() {
  # The fp32-reference checks (odd shapes) of the carried shims' variants, then racecheck and
  # memcheck on their small cases (SM90_BWD_CHECK="lib:variants ...").
  for entry in $SM90_BWD_CHECK; do
    local lib=${entry%%:*} variants=${entry#*:}
    timeout 90 python3 bench/sm90_bwd_variants.py --lib $lib --variants $variants --check \
      >> $OUT/variants-check.log 2>&1
    echo "variants check $variants rc $?"
    timeout 100 compute-sanitizer --tool racecheck python3 bench/sm90_bwd_variants.py --lib $lib \
      --variants $variants --small >> $OUT/variants-racecheck.log 2>&1
    echo "variants racecheck rc $?: $(grep -E 'RACECHECK SUMMARY' $OUT/variants-racecheck.log | tail -1)"
    timeout 60 compute-sanitizer --tool memcheck python3 bench/sm90_bwd_variants.py --lib $lib \
      --variants $variants --small >> $OUT/variants-memcheck.log 2>&1
    echo "variants memcheck rc $?: $(grep -E 'ERROR SUMMARY' $OUT/variants-memcheck.log | tail -1)"
  done
  grep -hE "check:|FAIL" $OUT/variants-check.log $OUT/variants-racecheck.log | sort | uniq -c | head -20
  grep -m5 -E "hazard|Invalid" $OUT/variants-racecheck.log $OUT/variants-memcheck.log
}
step_variants_build() {
  # The shim of bench/sm90_bwd_variants.cu (every variant, one nvcc per variant) beside the build.
  local start=$SECONDS
  bench/sm90_bwd_variants_build.sh $BUILD-variants 16 > $OUT/variants-build.log 2>&1
  echo "variants build rc $? in $((SECONDS - start)) s"
  grep -E "error|spill|C75[0-9][0-9]" $OUT/variants-build.log | sort | uniq -c | head -10
}
step_variants() {
  local i=0
  for entry in $SM90_BWD_AB; do
    local lib=${entry%%:*} variants=${entry#*:}
    i=$((i + 1))
    # The peers (SDPA cuDNN, flash) in the first run only.
    timeout 100 python3 bench/sm90_bwd_variants.py --lib $lib --variants $variants --bench \
      --head-dims ${SM90_BWD_VARIANT_DIMS:-64,128} \
      $([ $i -gt 1 ] && echo --no-sdpa) --json $OUT/variants-$i.json > $OUT/variants-$i.log 2>&1
    echo "variants $i ($lib) rc $?"; grep -v '^|---' $OUT/variants-$i.log
  done
}
step_ncu_variants() {
  # ncu of carried shim variants (SM90_BWD_NCU="lib:D,N,causal:variants ..."), as in
  # bench/sm90_bwd_tune_run.sh; SM90_BWD_NCU_KERNEL=wide_backward_kernel for the D = 256 kernel.
  for entry in $SM90_BWD_NCU; do
    local lib=${entry%%:*} rest=${entry#*:}
    timeout 90 ncu --section SpeedOfLight --section ComputeWorkloadAnalysis \
      --section MemoryWorkloadAnalysis --section WarpStateStats --print-details all \
      --metrics lts__t_sectors_op_red.sum -k "regex:${SM90_BWD_NCU_KERNEL:-(^|::)backward_kernel}" \
      python3 bench/sm90_bwd_variants.py --lib $lib --profile ${rest%%:*} \
      --variants ${rest#*:} >> $OUT/ncu.log 2>&1
    echo "ncu $entry rc $?"
  done
  grep -E "profile:|Duration|L2: Xbar2lts|Tensor \(All\)|Stall (Long|Wait|Barrier)|Warp Cycles Per Issued" \
    $OUT/ncu.log | cut -c1-110 | head -40
}
step_ncu() {
  # Not in the default steps (tuning, once the tests pass): stall reasons, throughputs and the L2
  # reduction traffic of one sm90 backward (bf16, D = 128, N = 4096, B = 4, H = 16).
  timeout 120 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
    --section LaunchStats --metrics lts__t_sectors_op_red.sum,lts__t_sectors_op_red.sum.per_second \
    -k regex:backward_kernel -c 1 \
    $BUILD/tests/cuda/fattn_cuda_bench --backends cuda_sm90 --dtype bf16 --batch 4 --heads 16 \
    --seqlen 4096 --head-dim 128 --direction bwd --repeats 1 > $OUT/ncu.log 2>&1
  echo "ncu rc $?"
  grep -E "Throughput|Stall|Warp Cycles|Registers|Duration|lts__t_sectors_op_red" $OUT/ncu.log | head -40
}
for step in $STEPS; do "step_$step"; done
