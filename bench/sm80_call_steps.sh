# shellcheck shell=bash
# Steps shared by the sm80 forward candidate calls (sourced, bash): the library's sm80 GPU tests
# built in the background from a candidate tree (a tarball of a worktree's tracked files), then
# the forward tests and the two sanitizers on a few cases, a line each on stdout. The thirteenth
# session's call scripts and later ones source it instead of spelling the steps out.
#   source bench/sm80_call_steps.sh
#   sm80_build_tree_tests TREE.tgz "64;128;256" JOBS [BUILD_TIMEOUT_S]  # sets SM80_TESTS_PID, SM80_TESTS
#   sm80_unpack_old_new CARRY_DIR  # /tmp/old.so, /tmp/new.so for bench/sm80_{fwd,bwd}_turns.py
#   ... the call's own timing steps ...
#   sm80_run_forward_tests TESTS_TIMEOUT_S SANITIZER_TIMEOUT_S 'gtest filter for the sanitizers' \
#     ['gtest filter for the tests' (default SM80_FORWARD_TESTS; the backward calls name theirs)]
# Writes $OUT/lib-configure.log, lib-build.log, gtest*.log (sm80_pack_logs tars them).

SM80_TREE_SOURCE=/tmp/sm80-candidate-tree
SM80_TREE_BUILD=/tmp/sm80-candidate-build
SM80_BUILD_TIMEOUT_S=200  # default; three head-dim buckets of both dtypes build in ~120 s on 14 jobs
SM80_FORWARD_TESTS='*cuda_sm80*:*Sm80Forward*:*Sm80Misaligned*'

# The old / new shims of a bench/sm80_fwd_turns.py --old/--new call, carried as
# <carry>/old.so.xz and new.so.xz: unpacked to /tmp/old.so and /tmp/new.so, and the GPU's line.
sm80_unpack_old_new() {
  xz -dc "$1/old.so.xz" > /tmp/old.so && xz -dc "$1/new.so.xz" > /tmp/new.so || return 1
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
}

sm80_build_tree_tests() {
  local tree=$1 head_dims=$2 jobs=$3 build_timeout=${4:-$SM80_BUILD_TIMEOUT_S}
  SM80_TESTS=$SM80_TREE_BUILD/tests/cuda/fattn_cuda_tests
  mkdir -p "$SM80_TREE_SOURCE" && tar xzf "$tree" -C "$SM80_TREE_SOURCE"
  ( cmake -S "$SM80_TREE_SOURCE" -B "$SM80_TREE_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DFATTN_CUDA=ON -DFATTN_CUDA_FAMILIES=sm80 "-DFATTN_CUDA_HEAD_DIMS=$head_dims" \
      "-DFATTN_CUDA_DTYPES=fp16;bf16" -DFATTN_CUDA_ARCHS=90a -DFATTN_CUDA_RESOURCE_USAGE=ON \
      -DFATTN_BUILD_TOOLS=OFF > "$OUT/lib-configure.log" 2>&1 &&
    timeout "$build_timeout" nice -n 19 ninja -C "$SM80_TREE_BUILD" -j "$jobs" fattn_cuda_tests \
      > "$OUT/lib-build.log" 2>&1
    echo $? > "$OUT/lib-build.rc" ) &
  SM80_TESTS_PID=$!
}

sm80_run_forward_tests() {
  local tests_timeout=$1 sanitizer_timeout=$2 sanitizer_filter=$3
  local tests_filter=${4:-$SM80_FORWARD_TESTS}
  echo "== $(date +%T) (at $SECONDS s) waiting for the library build"
  wait "$SM80_TESTS_PID"
  echo "build rc $(cat "$OUT/lib-build.rc"); kernels with spills:" \
    "$(grep -cE '[1-9][0-9]* bytes spill stores' "$OUT/lib-build.log")"
  tail -3 "$OUT/lib-build.log"
  timeout "$tests_timeout" "$SM80_TESTS" --gtest_filter="$tests_filter" > "$OUT/gtest.log" 2>&1
  local rc=$?  # before any $(...) below: a command substitution resets $?
  echo "== $(date +%T) gtest rc $rc: $(grep -cE '^\[       OK' "$OUT/gtest.log") ok"
  grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" "$OUT/gtest.log" | head -12
  grep -E 'Failure|error|differs' "$OUT/gtest.log" | head -20
  local tool
  for tool in memcheck racecheck; do
    timeout "$sanitizer_timeout" compute-sanitizer --tool "$tool" --error-exitcode 1 "$SM80_TESTS" \
      --gtest_filter="$sanitizer_filter" > "$OUT/gtest-$tool.log" 2>&1
    rc=$?
    echo "== $(date +%T) $tool rc $rc: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' \
      "$OUT/gtest-$tool.log" | tail -1)" "$(grep -cE '^\[       OK' "$OUT/gtest-$tool.log") ok"
  done
}

# One variant of a backward timing shim in turns beside the table's kernels and FA2
# (bench/sm80_bwd_det_ratio.py, or $SM80_BWD_RATIO where a call carries its own copy), into
# $OUT/ab<variant>.json and .log, the log's lines printed:
#   SM80_BWD_SHIM=<libsm80bwdtimeline.so> sm80_bwd_ab VARIANT 'D,N,causal;...' TIMEOUT_S [flags...]
sm80_bwd_ab() {
  local variant=$1 points=$2 timeout_s=$3
  shift 3
  timeout "$timeout_s" python3 "${SM80_BWD_RATIO:-bench/sm80_bwd_det_ratio.py}" \
    --plain "${SM80_BWD_SHIM:?}" --points "$points" --variant "$variant" --reps 5 \
    --json "$OUT/ab$variant.json" "$@" > "$OUT/ab$variant.log" 2>&1
  local rc=$?
  echo "== $(date +%T) (at $SECONDS s) variant $variant rc $rc"; cut -c1-420 "$OUT/ab$variant.log"
}

# The library's scripts/gpu-check for a call's checks, built in the background (niced) while the
# call times kernels, then its tests and sanitizers on the finished build, bundled under $OUT/gc
# (the twentieth session's calls):
#   sm80_gpu_check_start CHECK_ARGS...       # sets SM80_GPU_CHECK_PID
#   ... the call's timing steps ...
#   sm80_gpu_check_wait                      # the build's summary lines
#   sm80_gpu_check_run DEADLINE_S CHECK_ARGS...  # tests and sanitizers until DEADLINE_S
sm80_gpu_check_start() {
  mkdir -p "$OUT/gc"
  ( OUT=$OUT/gc nice -n 19 scripts/gpu-check "$@" --no-tests --no-sanitizers --jobs 14 \
      > "$OUT/gc-build.txt" 2>&1 ) &
  SM80_GPU_CHECK_PID=$!
}

sm80_gpu_check_wait() {
  wait "$SM80_GPU_CHECK_PID"
  tail -3 "$OUT/gc-build.txt"
}

sm80_gpu_check_run() {
  local deadline=$1
  shift
  OUT=$OUT/gc timeout $((deadline - SECONDS)) scripts/gpu-check "$@" --bundle 2>&1 | tail -14
}

# Tars the build and test logs (and any extra files named) into $OUT/logs.tgz: fewer, smaller
# files come back from a call.
sm80_pack_logs() {
  (cd "$OUT" && tar czf logs.tgz lib-*.log gtest*.log "$@" && rm -f lib-*.log gtest*.log lib-build.rc "$@")
}

# The usual start of an old / new sm80 call (twentieth and twenty-first sessions): the shims of
# CARRY_DIR unpacked (sm80_unpack_old_new) and the sm80 library's GPU-test build started in the
# background with SM80_CHECKS, the checks sm80_gpu_check_run takes at the end:
#   sm80_old_new_call_start CARRY_DIR || exit 1
#   ... timing steps ...
#   sm80_gpu_check_wait; sm80_gpu_check_run DEADLINE_S "${SM80_CHECKS[@]}"
SM80_CHECKS=(--families sm80 --dtypes "fp16;bf16" --no-bench)
sm80_old_new_call_start() {
  sm80_unpack_old_new "$1" || return 1
  sm80_gpu_check_start "${SM80_CHECKS[@]}"
}
