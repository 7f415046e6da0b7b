#!/bin/bash
# h16-d192: the 192 bucket's candidates (candidate-lazy.patch, candidate-lazypin.patch; NOTES.md)
# timed in turns against main's D = 192 kernel (cur) and cuDNN (SDPA), D = 192 bf16 / fp16,
# N = 1k / 4k / 16k (B = 16384 / N, H = 10), causal and not; run 2 in reverse order. Then the
# D = 129..192 correctness checks of every contestant and compute-sanitizer memcheck of the
# candidates on the small cases. About 110-140 s with the carried shims (+~35 s to build them
# here when the carry is missing). Writes $OUT/d192-summary.md and $OUT/d192.tar.xz.
# From the repository root (the files of bench/results/sm90-d192-2026-11-23-s16/ in place):
#   D192_BUILD=build-h16-d192 bash bench/results/sm90-d192-2026-11-23-s16/call.sh
# run tool: carry ["build-h16-d192"] (.deps not needed: no CMake build), timeout_s 170.
# Run from the repository root (bench/, scripts/ there); this script's directory may be anywhere.
HERE=$(cd "$(dirname "$0")" && pwd)
source scripts/gpu-env.sh 2>/dev/null
BUILD=${D192_BUILD:-build-h16-d192}
NAMES=(cur lazy lazypin)
W=$(mktemp -d /tmp/d192.XXXXXX)
L=$W/steps.txt
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm,power.limit --format=csv,noheader > "$W/gpu.txt" 2>&1
if ! tar -xJf "$BUILD/carry/shims.tar.xz" -C "$W" 2>/dev/null; then
  echo "no carry: building the shims here" >> "$L"
  timeout 80 bash "$HERE/build.sh" "$BUILD" worktree 16 lazy lazypin > "$W/build.log" 2>&1
  echo "build rc $? at $((SECONDS - start)) s" >> "$L"
  tar -xJf "$BUILD/carry/shims.tar.xz" -C "$W" || { cat "$L" | tee "$OUT/d192-summary.md"; exit 1; }
fi
libs() { for n in "$@"; do echo "--lib $n=$W/$n.so"; done; }
# 1. correctness, every contestant (fp32 reference)
timeout 40 python3 "$HERE/check_d192.py" $(libs "${NAMES[@]}") --json "$W/check.json" > "$W/check.log" 2>&1
echo "check rc $? at $((SECONDS - start)) s: $(grep -c '^PASS' "$W/check.log") PASS, $(grep -c '^FAIL' "$W/check.log") FAIL" >> "$L"
# 2. timing in turns, twice (run 2 reversed)
P="192,1024,0;192,1024,1;192,2048,0;192,4096,0;192,4096,1;192,16384,0;192,16384,1"
S=bench/sm90_vs_cudnn.py
rev=(); for ((i = ${#NAMES[@]} - 1; i >= 0; i--)); do rev+=("${NAMES[i]}"); done
for run in run1 run2; do
  if [ $run = run1 ]; then order=("${NAMES[@]}"); else order=("${rev[@]}"); fi
  for dtype in bf16 fp16; do
    timeout 30 python3 $S $(libs "${order[@]}") --bench --no-flash --dtype $dtype --points "$P" \
      --rounds 15 --json "$W/$run-$dtype.json" > "$W/$run-$dtype.log" 2>&1
    echo "$run $dtype rc $? at $((SECONDS - start)) s" >> "$L"
  done
done
# 3. memcheck of the candidates on the small cases, with what time is left (~150 s in all)
left=$((150 - (SECONDS - start)))
if [ $left -ge 20 ]; then
  timeout $left compute-sanitizer --tool memcheck --error-exitcode 1 python3 "$HERE/check_d192.py" \
    $(libs lazy lazypin) --small > "$W/memcheck.log" 2>&1
  echo "memcheck rc $? at $((SECONDS - start)) s: $(grep -E 'ERROR SUMMARY' "$W/memcheck.log" | tr '\n' ' ')" >> "$L"
else
  echo "memcheck skipped: $left s left" >> "$L"
fi
{
  echo "# h16-d192 call: cur / lazy / lazypin / cuDNN, D = 192"; echo
  python3 "$HERE/summary.py" "$W" "$(IFS=,; echo "${NAMES[*]}")"
  echo; echo "GPU: $(cat "$W/gpu.txt")"; echo; sed 's/^/- /' "$L"
  echo; grep -E '^(FAIL|check:|==)' "$W/check.log"
} > "$OUT/d192-summary.md" 2>&1
rm -f "$W"/*.so
tar -cJf "$OUT/d192.tar.xz" -C "$W" . && rm -rf "$W"
cat "$OUT/d192-summary.md"
