# shellcheck shell=bash
# Steps shared by the Hopper forward candidate calls (sourced, bash): the sm90 GPU test build of
# the working tree in the background, then the tests and the two sanitizers on a few cases,
# one line per step in a steps log. Thirteenth-session call scripts and later ones source it
# instead of spelling the steps out.
#   source bench/sm90_call_steps.sh
#   sm90_build_tests BUILD "64;128;256" [extra cmake args...]   # sets SM90_TESTS_PID
#   ... the call's own steps ...
#   sm90_run_tests BUILD LOG TESTS_TIMEOUT_S SANITIZER_TIMEOUT_S 'gtest filter for the sanitizers'
# Writes $OUT/build.log, $OUT/tests.log, $OUT/sanitizers.log.

SM90_BUILD_JOBS=12  # leaves the device's other cores to the timing steps running meanwhile

sm90_build_tests() {
  local build=$1 head_dims=$2
  shift 2
  (cmake -S . -B "$build/tests" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFATTN_CUDA=ON \
     -DFATTN_CUDA_FAMILIES=sm90 -DFATTN_CUDA_ARCHS=90a "-DFATTN_CUDA_HEAD_DIMS=$head_dims" \
     -DFATTN_BUILD_TOOLS=OFF "$@" > "$OUT/build.log" 2>&1 &&
   nice -n 19 ninja -C "$build/tests" -j"$SM90_BUILD_JOBS" fattn_cuda_tests >> "$OUT/build.log" 2>&1) &
  SM90_TESTS_PID=$!
}

sm90_run_tests() {
  local build=$1 log=$2 tests_timeout=$3 sanitizer_timeout=$4 sanitizer_filter=$5
  wait "$SM90_TESTS_PID"
  echo "tests build rc $? at ${SECONDS} s" >> "$log"
  local tests=$build/tests/tests/cuda/fattn_cuda_tests
  timeout "$tests_timeout" "$tests" --gtest_filter='*sm90*:*Sm90*' > "$OUT/tests.log" 2>&1
  echo "tests rc $? at ${SECONDS} s: $(grep -E '^\[  PASSED|^\[  FAILED|^\[  SKIPPED|tests ran' \
    "$OUT/tests.log" | head -5 | tr '\n' ' ') ok $(grep -c '^\[       OK' "$OUT/tests.log")" >> "$log"
  local tool
  for tool in memcheck racecheck; do
    timeout "$sanitizer_timeout" compute-sanitizer --tool "$tool" --error-exitcode 1 "$tests" \
      --gtest_filter="$sanitizer_filter" > "/tmp/$tool.log" 2>&1
    echo "$tool rc $? at ${SECONDS} s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' \
      "/tmp/$tool.log" | tr '\n' ' ')" >> "$log"
    cat "/tmp/$tool.log" >> "$OUT/sanitizers.log"
  done
}

# The old / new forward shims of a bench/sm90_vs_cudnn.py --lib old=... --lib new=... call
# (twenty-first session): old from a carried `git archive <commit> src include | gzip` tarball,
# new from this tree, built side by side (bench/sm90_build.sh, 8 jobs each) into
# /tmp/sh-old and /tmp/sh-new; prints the builds' last lines and the new shim's kernels with
# spills, and sets SM90_OLD_NEW_LIBS to the two --lib arguments.
#   sm90_old_new_shims OLD_TREE.tar.gz
sm90_old_new_shims() {
  mkdir -p /tmp/oldtree && tar xzf "$1" -C /tmp/oldtree || return 1
  ( SM90_SOURCE_ROOT=/tmp/oldtree bench/sm90_build.sh /tmp/sh-old 8 > "$OUT/shim-old.log" 2>&1 ) &
  ( bench/sm90_build.sh /tmp/sh-new 8 > "$OUT/shim-new.log" 2>&1 ) &
  wait
  tail -n 2 "$OUT/shim-old.log" "$OUT/shim-new.log"
  grep -h 'bytes spill' /tmp/sh-new/ptxas.log | grep -vc ' 0 bytes spill stores, 0 bytes spill loads'
  SM90_OLD_NEW_LIBS=(--lib new=/tmp/sh-new/libsm90shim.so --lib old=/tmp/sh-old/libsm90shim.so)
}
