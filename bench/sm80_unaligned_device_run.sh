#!/usr/bin/env bash
# One GPU-machine call for the sm80 forward on 2-byte-aligned rows (odd head dims in packed
# tensors, misaligned views) and on odd head dims (step classes): one CMake build (sm80 only,
# library + GPU tests + Python extension), and where BASELINE_SOURCES names a folder holding an
# earlier tile_io.cuh, forward_kernel.cuh, tile_config.hpp and forward.cuh (src/cuda/sm80), a
# second build of the Python extension from them (fp16, the buckets of BASELINE_BUCKETS only), in
# parallel; then
#   1. the GPU tests: tests/cuda/test_sm80_misaligned.cpp (2-byte rows, step classes) and the
#      cuda_sm80 part of the shared matrix at D = 129 (forward and backward against the float64
#      reference);
#   2. compute-sanitizer memcheck and racecheck on the 2-byte-row cases (before the timings: a
#      change is taken only where they pass);
#   3. bench/compare.py's head-dim sweep (fp16, B=16, H=16, N=2048, forward) of cuda_sm80 beside
#      PyTorch's flash and cuDNN in one process; with a baseline (and VARIANT_SOURCES, more
#      builds from such folders), TURNS turns at BASELINE_HEAD_DIMS of one process per build (the
#      packages cannot share a process), the order rotated each turn, so that clock drift hits both builds alike, and a table of
#      every turn's TFLOP/s last;
#      (steps past STEP_BUDGET_S seconds are skipped);
#   4. Nsight Compute on one D=129 and one D=136 launch (NCU=1);
#   5. instruction counts of the kernels from the library's SASS (cuobjdump).
# Every log goes to $OUT/unaligned-logs.tgz (the device tool returns only a few files) and a
# summary to stdout. Run from the repository root on the GPU machine:
#   source scripts/gpu-env.sh; bench/sm80_unaligned_device_run.sh [head dims of the sweep]
# A baseline folder from a commit (here, before the call; untracked files travel with the tree):
#   for f in tile_io.cuh forward_kernel.cuh tile_config.hpp forward.cuh; do
#     git show <commit>:src/cuda/sm80/$f > <folder>/$f; done
set -u
OUT="${OUT:?set OUT to the folder for the logs}"
SWEEP_HEAD_DIMS="${1:-33,64,128,129,136,143,192,255,256}"
BASELINE_SOURCES="${BASELINE_SOURCES:-}"
# More builds like the baseline's, timed in the turns: "name=folder name=folder ..."
VARIANT_SOURCES="${VARIANT_SOURCES:-}"
BASELINE_BUCKETS="${BASELINE_BUCKETS:-192}"
BASELINE_HEAD_DIMS="${BASELINE_HEAD_DIMS:-129,136,192}"
TURNS="${TURNS:-3}"
STEP_BUDGET_S="${STEP_BUDGET_S:-300}"  # the device tool's limit is 360 s per call
BUILD=build-unaligned
LOGS=/tmp/unaligned-logs  # packed into $OUT after every step, so a run cut short keeps its logs
mkdir -p "$LOGS"
TESTS="$BUILD/tests/cuda/fattn_cuda_tests"
SANITIZER="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
step() {
  tar -czf "$OUT/unaligned-logs.tgz" -C /tmp unaligned-logs
  echo "== $(date +%T) [$SECONDS s] $*"
}
within_budget() {
  if [ "$SECONDS" -ge "$STEP_BUDGET_S" ]; then echo "skipped ($SECONDS s >= $STEP_BUDGET_S s)"; return 1; fi
}
configure() {  # build dir, head dims, dtypes, log
  cmake -S "${5:-.}" -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFATTN_CUDA=ON \
    -DFATTN_CUDA_FAMILIES=sm80 "-DFATTN_CUDA_HEAD_DIMS=$2" "-DFATTN_CUDA_DTYPES=$3" \
    -DFATTN_CUDA_ARCHS=90a -DFATTN_CUDA_RESOURCE_USAGE=ON -DFATTN_BUILD_PYTHON=ON \
    -DFATTN_BUILD_TOOLS=OFF > "$4" 2>&1 || { tail -20 "$4"; return 1; }
}
package() {  # build dir -> a folder holding the fattn package with its extension
  local dir
  dir="$(mktemp -d)"
  cp -r python/fattn "$dir/" && cp "$1"/python/_fattn*.so "$dir/fattn/" && echo "$dir"
}

step configure
configure "$BUILD" "64;128;192;256" "fp16;bf16" "$LOGS/configure.log" || exit 1
other_tree() {  # name, folder of the four sources: a copy of the tree with them, configured
  local tree="/tmp/fattn-$1"
  rm -rf "$tree" && mkdir -p "$tree" &&
    tar -c --exclude='./build-*' --exclude=./.deps . | tar -x -C "$tree" &&
    cp "$2"/{tile_io.cuh,forward_kernel.cuh,tile_config.hpp,forward.cuh} "$tree/src/cuda/sm80/" &&
    configure "$tree/build" "$BASELINE_BUCKETS" fp16 "$LOGS/configure-$1.log" "$tree"
}
if [ -n "$BASELINE_SOURCES" ]; then
  other_tree baseline "$BASELINE_SOURCES" || BASELINE_SOURCES=""
fi
variants=()
for entry in $VARIANT_SOURCES; do
  other_tree "${entry%%=*}" "${entry#*=}" && variants+=("${entry%%=*}")
done
step build
other_builds=()
for name in baseline "${variants[@]}"; do
  if [ -f "/tmp/fattn-$name/build/build.ninja" ]; then
    timeout 230 ninja -C "/tmp/fattn-$name/build" -j 4 _fattn > "$LOGS/build-$name.log" 2>&1 &
    other_builds+=("$name:$!")
  fi
done
timeout 230 ninja -C "$BUILD" -j "$(($(nproc) - 4))" fattn_cuda_tests _fattn > "$LOGS/build.log" 2>&1 ||
  { grep -B2 -A8 -m3 "error" "$LOGS/build.log"; tail -5 "$LOGS/build.log"; }
grep -E "Compiling entry|registers|spill" "$LOGS/build.log" > "$LOGS/ptxas.log"
echo "kernels with spills: $(grep -cE '[1-9][0-9]* bytes spill stores' "$LOGS/ptxas.log")"
for entry in "${other_builds[@]}"; do
  wait "${entry#*:}"; echo "${entry%%:*} build exit $?"
done

step tests
timeout 40 "$TESTS" --gtest_filter='*/Sm80ForwardShapes.*' > "$LOGS/tests-misaligned.log" 2>&1
echo "misaligned + step-class tests exit $?"
grep -E "^\[  (FAILED|PASSED)|tests ran|Failure|error:|Expected|Which is" "$LOGS/tests-misaligned.log" | head -20
timeout 30 "$TESTS" --gtest_filter='*cuda_sm80*D129*:*Sm80Backward*129*' --gtest_brief=1 \
  > "$LOGS/tests-matrix.log" 2>&1
echo "cuda_sm80 matrix at D = 129 exit $?"
grep -E "^\[  (FAILED|PASSED)|tests ran" "$LOGS/tests-matrix.log" | head -20

# sanitize <tool> <seconds> <gtest filter>: one compute-sanitizer run of the test binary.
sanitize() {
  step "$1"
  if within_budget; then
    timeout "$2" "$SANITIZER" --tool "$1" --error-exitcode 1 --print-limit 20 "$TESTS" \
      --gtest_filter="$3" > "$LOGS/$1.log" 2>&1
    echo "$1 exit $?"
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$LOGS/$1.log" | head -5
  fi
}
PACKED_ROW_CASES='Misaligned/Sm80ForwardShapes.*:*cuda_sm80_small*D129*'
sanitize memcheck 90 "$PACKED_ROW_CASES"
sanitize racecheck 120 "${RACECHECK_FILTER:-$PACKED_ROW_CASES}"

step bench
PACKAGE="$(package "$BUILD")"
(cd "$LOGS" && PYTHONPATH="$PACKAGE" timeout 80 python3 "$OLDPWD/bench/compare.py" \
  --sections head-dim --sweep-head-dims "$SWEEP_HEAD_DIMS" --fattn-backends cuda_sm80 \
  --sdpa-backends flash,cudnn --no-plot --out "$LOGS/headdim") > "$LOGS/bench.log" 2>&1
echo "bench exit $?"; tail -16 "$LOGS/bench.log"
if [ -n "$BASELINE_SOURCES" ] && within_budget; then
  contestants=("current:$PACKAGE" "baseline:$(package /tmp/fattn-baseline/build)")
  for name in "${variants[@]}"; do
    contestants+=("$name:$(package "/tmp/fattn-$name/build")")
  done
  turn_of() {  # turn, name, package
    (cd "$LOGS" && PYTHONPATH="$3" timeout 40 python3 "$OLDPWD/bench/compare.py" \
      --sections head-dim --sweep-head-dims "$BASELINE_HEAD_DIMS" --fattn-backends cuda_sm80 \
      --sdpa-backends "" --no-plot --out "$LOGS/turn$1-$2") > "$LOGS/bench-turn$1-$2.log" 2>&1 ||
      echo "turn $1 $2 failed: $(tail -2 "$LOGS/bench-turn$1-$2.log")"
  }
  for turn in $(seq 1 "$TURNS"); do
    within_budget || break
    count=${#contestants[@]}
    for i in $(seq 0 $((count - 1))); do  # the order rotated by one each turn
      entry="${contestants[$(((i + turn) % count))]}"
      turn_of "$turn" "${entry%%:*}" "${entry#*:}"
    done
  done
  python3 - "$LOGS" <<'PY'
import json, pathlib, statistics, sys
runs = {}  # (head_dim, build) -> [(turn, TFLOP/s, lowest SM MHz)]
for path in sorted(pathlib.Path(sys.argv[1]).glob("turn*-*.json")):
    turn, name = path.stem[len("turn"):].split("-", 1)
    for record in json.loads(path.read_text())["head_dim_sweep"]:
        if record["status"] == "ok":
            mhz = record["extra"].get("round_sm_mhz") or [0]
            runs.setdefault((record["head_dim"], name), []).append(
                (int(turn), record["tflops"], min(m or 0 for m in mhz)))
for (head_dim, name), cells in sorted(runs.items()):
    values = [tflops for _, tflops, _ in cells]
    print(f"D={head_dim} {name:>10}: median {statistics.median(values):6.1f}  turns " +
          " ".join(f"t{t}={v:.1f}@{m}" for t, v, m in sorted(cells)))
PY
fi

step ncu
# One launch each of D=129 (2-byte rows: the staged kernel) and D=136 (16-byte rows, the same
# bucket and step class) at the sweep's shape: throughput, stall reasons, occupancy.
if [ "${NCU:-0}" = 1 ] && within_budget; then
  cat > "$LOGS/ncu_driver.py" <<'PY'
import torch
import fattn
for head_dim in (129, 136):
    q, k, v = (torch.randn(16, 2048, 16, head_dim, device="cuda", dtype=torch.float16)
               for _ in range(3))
    fattn.attention(q, k, v, backend="cuda_sm80")
    torch.cuda.synchronize()
PY
  PYTHONPATH="$PACKAGE" timeout 60 ncu --kernel-name regex:forward_kernel --launch-count 2 \
    --section SpeedOfLight --section WarpStateStats --section Occupancy --section SchedulerStats \
    python3 "$LOGS/ncu_driver.py" > "$LOGS/ncu.log" 2>&1
  echo "ncu exit $?"
  grep -E "forward_kernel|Compute \(SM\) Throughput|Memory Throughput|Duration|Issued Warp|No Eligible|Stall" "$LOGS/ncu.log" | head -30
fi

step sass
LIB="$(ls "$BUILD"/src/libfattn.so* | head -1)"
cuobjdump -sass "$LIB" > "$LOGS/sass.txt" 2>&1
awk '/Function : /{name=$3} /LDG|STS|SHFL|HMMA|LDSM|LDL|STL|LDGSTS|BAR/{
       match($0, /(LDGSTS|LDG|STS|SHFL|HMMA|LDSM|LDL|STL|BAR)[.A-Z0-9_]*/);
       if (RSTART) count[name" "substr($0, RSTART, RLENGTH)]++}
     END{for (k in count) print count[k], k}' "$LOGS/sass.txt" | grep -i forward | sort -k2 \
  > "$LOGS/sass-counts.txt"
grep -i unaligned "$LOGS/sass-counts.txt" | grep -E "192.*6__half.*NoMask" | head -20
gzip -f "$LOGS/sass.txt"

step done
