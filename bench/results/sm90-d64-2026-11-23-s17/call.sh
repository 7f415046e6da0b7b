#!/bin/bash
# h17-d64f: the D = 64 tile-shape candidates (candidate-m128.patch: 128 x 128, two consumers;
# candidate-m256.patch: 256 x 64, four consumers; NOTES.md) timed in turns against main's D = 64
# kernel (cur, 192 x 128, three consumers) and cuDNN (SDPA), D = 64 bf16 / fp16, N = 512 / 1k / 2k
# (B = 16384 / N, H = 32), causal and not; run 2 in reverse order. First the D <= 64 correctness
# checks of every contestant (causal Nq != Nk, GQA, windows, ragged N), last compute-sanitizer
# memcheck of both candidates on one case (GQA causal N = 1013, > 132 tiles). About 80-110 s with
# the carried shims (+~10-15 s to build them on the device: D64_REBUILD=1 or no carry).
# Writes $OUT/d64-summary.md and $OUT/d64.tar.xz.
# From the repository root, with this directory carried in the build dir:
#   D64_BUILD=build-h17-d64f bash build-h17-d64f/d64/call.sh
# run tool: kind nvidia-h100-x1, carry ["build-h17-d64f"] (.deps not needed: no CMake build),
# timeout_s 120 (the script starts no step after ~100 s; ~70 s expected).
HERE=$(cd "$(dirname "$0")" && pwd)
source scripts/gpu-env.sh 2>/dev/null
BUILD=${D64_BUILD:-build-h17-d64f}
NAMES=(cur m128 m256)
W=$(mktemp -d /tmp/d64.XXXXXX)
L=$W/steps.txt
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm,power.limit --format=csv,noheader > "$W/gpu.txt" 2>&1
# D64_REBUILD=1 (or no carry): build the shims from the device's checkout (cur = its src/, the
# candidates = it + the patches), e.g. when main's src/ moved past e37174c, the carried cur.so.
if [ -n "$D64_REBUILD" ] || ! tar -xJf "$BUILD/carry/shims.tar.xz" -C "$W" 2>/dev/null; then
  echo "building the shims here (D64_REBUILD='$D64_REBUILD')" >> "$L"
  timeout 60 bash "$HERE/build.sh" "$BUILD" worktree 16 m128 m256 > "$W/build.log" 2>&1
  echo "build rc $? at $((SECONDS - start)) s" >> "$L"
  tar -xJf "$BUILD/carry/shims.tar.xz" -C "$W" || { cat "$L" | tee "$OUT/d64-summary.md"; exit 1; }
fi
libs() { for n in "$@"; do echo "--lib $n=$W/$n.so"; done; }
# 1. correctness, every contestant (fp32 reference)
timeout 35 python3 "$HERE/check_d64.py" $(libs "${NAMES[@]}") --json "$W/check.json" > "$W/check.log" 2>&1
echo "check rc $? at $((SECONDS - start)) s: $(grep -c '^PASS' "$W/check.log") PASS, $(grep -c '^FAIL' "$W/check.log") FAIL" >> "$L"
# 2. timing in turns, twice (run 2 reversed)
P="64,512,0;64,512,1;64,1024,0;64,1024,1;64,2048,0;64,2048,1"
S=bench/sm90_vs_cudnn.py
rev=(); for ((i = ${#NAMES[@]} - 1; i >= 0; i--)); do rev+=("${NAMES[i]}"); done
for run in run1 run2; do
  if [ $run = run1 ]; then order=("${NAMES[@]}"); else order=("${rev[@]}"); fi
  for dtype in bf16 fp16; do
    timeout 20 python3 $S $(libs "${order[@]}") --bench --no-flash --dtype $dtype --points "$P" \
      --rounds 15 --json "$W/$run-$dtype.json" > "$W/$run-$dtype.log" 2>&1
    echo "$run $dtype rc $? at $((SECONDS - start)) s" >> "$L"
  done
done
# 3. memcheck of the candidates on one case (CASES[2]: bf16 GQA causal 4 x 1013, 8 / 2 heads:
#    256 tiles of m128, both walk parities; 4 consumers' rows past N in m256), with the time left
left=$((100 - (SECONDS - start)))
if [ $left -ge 12 ]; then
  timeout $left compute-sanitizer --tool memcheck --error-exitcode 1 python3 "$HERE/check_d64.py" \
    $(libs m128 m256) --case 2 > "$W/memcheck.log" 2>&1
  echo "memcheck rc $? at $((SECONDS - start)) s: $(grep -E 'ERROR SUMMARY' "$W/memcheck.log" | tr '\n' ' ')" >> "$L"
else
  echo "memcheck skipped: $left s left" >> "$L"
fi
{
  echo "# h17-d64f call: cur / m128 / m256 / cuDNN, D = 64"; echo
  python3 "$HERE/summary.py" "$W" "$(IFS=,; echo "${NAMES[*]}")"
  echo; echo "GPU: $(cat "$W/gpu.txt")"; echo; sed 's/^/- /' "$L"
  echo; grep -E '^(FAIL|check:|==)' "$W/check.log"; grep -E '^(PASS|FAIL|check:)' "$W/memcheck.log" 2>/dev/null
} > "$OUT/d64-summary.md" 2>&1
rm -f "$W"/*.so
tar -cJf "$OUT/d64.tar.xz" -C "$W" . && rm -rf "$W"
cat "$OUT/d64-summary.md"
