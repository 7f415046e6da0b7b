#!/bin/bash
# One GPU-machine call for the sm80 forward (docs/perf-notes.md "Forward v4"): a proposed kernel
# (SM80_NEW_LIB, built with bench/sm80_build.sh and SM80_NVCC_FLAGS) checked and timed side by
# side with the committed one (SM80_OLD_LIB) and PyTorch's flash and cuDNN, in one process.
# Steps (SM80_FWD_STEPS, in order; default all):
#   check     forward against the fp32 torch reference over every head dim of issue 5
#             (bench/sm80_vs_torch.py --check --fwd-only; a negative scale in every 4th case)
#   bench     bf16, B·N = 16384, H·D = 2048, D 64/128/256 × N 1k/4k/16k × causal: new, committed
#             (--baseline), flash, cuDNN forward TFLOP/s in the same rows
#   variants  the tile alternatives of bench/sm80_variants.cu at the same points
#   memcheck, racecheck   compute-sanitizer on --small (whole and partial K/V tiles, every bucket)
#   ncu       (not by default) stall reasons of one new forward and one PyTorch flash forward
#             each at SM80_NCU_DIMS (default 64, 128, 256), N = SM80_NCU_SEQLEN (default 4096)
#   odd       (not by default) the odd-head-dim table (fp16, B = 16, H = 16, N = 2048), new and
#             committed side by side, and each vs the next multiple of 64
#   lib       (not by default) builds the library's GPU tests (sm80 only, sm_90a) and runs the
#             cuda_sm80 cases of the shared matrix, Sm80ForwardShapes (test_sm80_misaligned.cpp)
#             and Sm80Backward, then memcheck and racecheck on the full-width forward cases
# SM80_FWD_VARIANT=N (fifth session): check, bench, memcheck and racecheck run variant N of
# bench/sm80_variants.cu (bf16) instead of the table, and bench times it against the same shim's
# table (the committed kernels: "base") in the same rows, with flash and cuDNN; the odd head dims
# (bf16 then) come with the bench step when SM80_FWD_ODD=1.
# SM80_FWD_BASE_VARIANT=N: bench times the table against variant N of the same shim (e.g. 5, the
# table before v6) in the same rows, odd head dims in bf16 with SM80_FWD_ODD=1; SM80_FWD_DIMS sets
# the bench's head dims (default 64,128,256). SM80_NCU_VARIANT=N: the ncu step profiles variant N
# as well (a second pass; flash only in the first).
# Logs go to $OUT/logs.tgz as each step ends (a call cut short keeps what finished); a summary
# on stdout.
#   source scripts/gpu-env.sh; bench/sm80_fwd_device_run.sh
set -o pipefail
export PYTHONUNBUFFERED=1
NEW=${SM80_NEW_LIB:-build-fwd80/shim-new/libsm80shim.so}
OLD=${SM80_OLD_LIB:-build-fwd80/shim-old/libsm80shim.so}
S=bench/sm80_vs_torch.py
SEQLENS=${SM80_FWD_SEQLENS:-1024,4096,16384}
STEPS=${SM80_FWD_STEPS:-check bench variants memcheck racecheck}
SANITIZER_SUMMARY='RACECHECK SUMMARY|ERROR SUMMARY'
VARIANT_ARGS=()
BENCH_BASE=(--baseline $OLD --no-odd)
if [ -n "${SM80_FWD_VARIANT:-}" ]; then
  VARIANT_ARGS=(--forward-variant "$SM80_FWD_VARIANT")
  BENCH_BASE=()
  [ "${SM80_FWD_ODD:-0}" = 1 ] || BENCH_BASE=(--no-odd)
fi
if [ -n "${SM80_FWD_BASE_VARIANT:-}" ]; then
  BENCH_BASE=(--base-variant "$SM80_FWD_BASE_VARIANT")
  [ "${SM80_FWD_ODD:-0}" = 1 ] || BENCH_BASE+=(--no-odd)
fi

: "${OUT:?set OUT to the folder for the logs}"
LOGS=/tmp/sm80-fwd-logs
mkdir -p $LOGS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
step_check() {
  timeout 90 python3 $S --lib $NEW --check --fwd-only "${VARIANT_ARGS[@]}" > $LOGS/check.log 2>&1
  echo "check rc $?: $(grep -E 'check:' $LOGS/check.log)"; grep FAIL $LOGS/check.log | head -5
}
step_bench() {
  timeout ${SM80_FWD_BENCH_TIMEOUT:-150} python3 $S --lib $NEW "${BENCH_BASE[@]}" \
    "${VARIANT_ARGS[@]}" --bench --fwd-only --dims ${SM80_FWD_DIMS:-64,128,256} \
    --seqlens $SEQLENS --json $LOGS/bench${SM80_FWD_BENCH_TAG:-}.json \
    > $LOGS/bench${SM80_FWD_BENCH_TAG:-}.log 2>&1
  echo "bench rc $?"; grep -v '^{' $LOGS/bench${SM80_FWD_BENCH_TAG:-}.log | grep -v '^|---'
}
step_variants() {
  timeout 100 python3 $S --lib $NEW --variants --variant-seqlens $SEQLENS \
    --json $LOGS/variants.json > $LOGS/variants.log 2>&1
  echo "variants rc $?"
  python3 - $LOGS/variants.json <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["variants"]
table = {(r["D"], r["N"], r["causal"]): r["fwd"] for r in rows if r["variant"] == 0}
for r in rows:
    base = table[(r["D"], r["N"], r["causal"])]
    print(f"D={r['D']} N={r['N']} causal={int(r['causal'])} v{r['variant']} {r['fwd']:.0f} "
          f"({r['fwd'] / base:.3f} of the table) {r['config']}")
PY
}
step_memcheck() {
  timeout 90 compute-sanitizer --tool memcheck python3 $S --lib $NEW --small --fwd-only \
    "${VARIANT_ARGS[@]}" > $LOGS/memcheck.log 2>&1
  echo "memcheck rc $?: $(grep -E 'ERROR SUMMARY' $LOGS/memcheck.log | tail -1)" \
    "$(grep 'check:' $LOGS/memcheck.log)"
}
step_racecheck() {
  timeout 120 compute-sanitizer --tool racecheck python3 $S --lib $NEW --small --fwd-only \
    "${VARIANT_ARGS[@]}" > $LOGS/racecheck.log 2>&1
  echo "racecheck rc $?: $(grep -E "$SANITIZER_SUMMARY" $LOGS/racecheck.log | tail -1)" \
    "$(grep 'check:' $LOGS/racecheck.log)"
}
step_ncu() {
  # Stall reasons and instruction counts of the new forward and PyTorch's flash (FA2) at
  # SM80_NCU_DIMS (default 64, 128, 256), bf16, B·N = 16384, N = SM80_NCU_SEQLEN (default 4096),
  # not causal; with SM80_NCU_VARIANT also that variant's forward (a second pass).
  local dims=${SM80_NCU_DIMS:-64,128,256} seqlen=${SM80_NCU_SEQLEN:-4096} variant flash
  local count=$(echo "$dims" | tr ',' '\n' | wc -l)
  for variant in 0 ${SM80_NCU_VARIANT:-}; do
    flash=(--profile-flash); [ "$variant" = 0 ] || flash=()
    timeout 120 ncu --section SpeedOfLight --section WarpStateStats --section Occupancy \
      --section SchedulerStats --section LaunchStats --section MemoryWorkloadAnalysis \
      --section InstructionStats -k 'regex:forward_kernel|flash_fwd' \
      -c $(( ${#flash[@]} ? 2 * count : count )) \
      python3 $S --lib $NEW --profile --fwd-only "${flash[@]}" --forward-variant $variant \
      --profile-dims $dims --profile-seqlen $seqlen > $LOGS/ncu-v$variant.log 2>&1
    echo "ncu variant $variant rc $?"
    local metrics="Duration|Registers Per|Achieved Occupancy|Issued Warp|Warp Cycles Per Issued"
    metrics+="|L1/TEX Cache Throughput|Compute \(SM\) Throughput|Executed Instructions  "
    grep -E "(forward_kernel|flash_fwd).*Context|$metrics" $LOGS/ncu-v$variant.log |
      sed 's/^ *//' | cut -c1-110 | head -60
  done
}
step_odd() {
  timeout 100 python3 $S --lib $NEW --baseline $OLD --bench --fwd-only --dims 64 --seqlens 4096 \
    --json $LOGS/odd.json > $LOGS/odd.log 2>&1
  echo "odd rc $?"; sed -n '/^| D | fwd ours | fwd base/,$p' $LOGS/odd.log | grep -v '^|---'
}
step_lib() {
  local build=build-sm80-fwd-device tests
  tests=$build/tests/cuda/fattn_cuda_tests
  cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DFATTN_CUDA=ON \
    -DFATTN_CUDA_FAMILIES=sm80 "-DFATTN_CUDA_HEAD_DIMS=64;128;192;256" \
    "-DFATTN_CUDA_DTYPES=fp16;bf16" -DFATTN_CUDA_ARCHS=90a -DFATTN_CUDA_RESOURCE_USAGE=ON \
    -DFATTN_BUILD_TOOLS=OFF > $LOGS/lib-configure.log 2>&1 ||
    { tail -20 $LOGS/lib-configure.log; return; }
  timeout 240 ninja -C $build -j "$(nproc)" fattn_cuda_tests > $LOGS/lib-build.log 2>&1
  echo "build rc $?; kernels with spills:" \
    "$(grep -cE '[1-9][0-9]* bytes spill stores' $LOGS/lib-build.log)"
  timeout 120 $tests --gtest_filter='*cuda_sm80*:*Sm80ForwardShapes*:*Sm80Backward*' \
    > $LOGS/gtest.log 2>&1
  echo "gtest rc $?: $(grep -cE '^\[       OK' $LOGS/gtest.log) ok"
  grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" $LOGS/gtest.log | head -12
  timeout 90 compute-sanitizer --tool memcheck --error-exitcode 1 $tests \
    --gtest_filter='FullWidth/*:StepClasses/*d100*:Misaligned/*d255*' \
    > $LOGS/gtest-memcheck.log 2>&1
  echo "memcheck rc $?: $(grep -E 'ERROR SUMMARY' $LOGS/gtest-memcheck.log | tail -1)"
  timeout 90 compute-sanitizer --tool racecheck --error-exitcode 1 $tests \
    --gtest_filter='FullWidth/*' > $LOGS/gtest-racecheck.log 2>&1
  echo "racecheck rc $?: $(grep -E "$SANITIZER_SUMMARY" $LOGS/gtest-racecheck.log | tail -1)"
}
for step in $STEPS; do
  echo "== $(date +%T) $step"
  "step_$step"
  tar -czf $OUT/logs.tgz -C /tmp sm80-fwd-logs
done
