#!/bin/bash
# h18-n64 call (eighteenth session): the D = 256 bucket with 64-key tiles (candidate-n64.patch:
# TileConfig<256>.block_n 80 -> 64, nothing else) timed in turns against main's 80-key kernels
# (cur) and cuDNN: D = 256 at N = 512 / 1k / 2k causal and not, and 4k non-causal (where v7 saw
# 64-key tiles lose), B·N = 16k, H = 8, bf16 and fp16, two passes (the second reversed). First
# the 22 correctness cases (fp32 reference) for both, then memcheck of n64 on the small cases.
# Writes $OUT/n64-summary.md and $OUT/n64.tar.xz (two files: the run tool returns at most 8).
#   N64_BUILD=build-h18-n64 bash build-h18-n64/n64/call.sh    (carry ["build-h18-n64"], 120 s)
HERE=$(cd "$(dirname "$0")" && pwd)
source scripts/gpu-env.sh 2>/dev/null
BUILD=${N64_BUILD:-build-h18-n64}
NAMES=(cur n64)
W=$(mktemp -d /tmp/n64.XXXXXX)
L=$W/steps.txt
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm,power.limit --format=csv,noheader > "$W/gpu.txt" 2>&1
tar -xJf "$BUILD/carry/shims.tar.xz" -C "$W" || { echo "no shims" | tee "$OUT/n64-summary.md"; exit 1; }
libs() { for n in "$@"; do echo "--lib $n=$W/$n.so"; done; }
timeout 35 python3 "$HERE/check_d256.py" $(libs "${NAMES[@]}") --json "$W/check.json" > "$W/check.log" 2>&1
echo "check rc $? at $((SECONDS - start)) s: $(grep -c '^PASS' "$W/check.log") PASS, $(grep -c '^FAIL' "$W/check.log") FAIL" >> "$L"
P="256,512,1;256,512,0;256,1024,1;256,1024,0;256,2048,1;256,2048,0;256,4096,0"
S=bench/sm90_vs_cudnn.py
for run in run1 run2; do
  if [ $run = run1 ]; then order=(cur n64); else order=(n64 cur); fi
  for dtype in bf16 fp16; do
    if [ $((SECONDS - start)) -gt 90 ]; then echo "$run $dtype skipped at $((SECONDS - start)) s" >> "$L"; continue; fi
    timeout 20 python3 $S $(libs "${order[@]}") --bench --no-flash --dtype $dtype --points "$P" \
      --rounds 15 --json "$W/$run-$dtype.json" > "$W/$run-$dtype.log" 2>&1
    echo "$run $dtype rc $? at $((SECONDS - start)) s" >> "$L"
  done
done
left=$((110 - (SECONDS - start)))
if [ $left -ge 10 ]; then
  timeout $left compute-sanitizer --tool memcheck --error-exitcode 1 python3 "$HERE/check_d256.py" \
    $(libs n64) --small > "$W/memcheck.log" 2>&1
  echo "memcheck rc $? at $((SECONDS - start)) s: $(grep -E 'ERROR SUMMARY' "$W/memcheck.log" | tr '\n' ' ')" >> "$L"
fi
{
  echo "# h18-n64 call: cur (80-key tiles) / n64 (64-key tiles) / cuDNN, D = 256"; echo
  python3 bench/sm90_candidates_summary.py "$W" "$(IFS=,; echo "${NAMES[*]}")"
  echo; echo "GPU: $(cat "$W/gpu.txt")"; echo; sed 's/^/- /' "$L"
  echo; grep -E '^(FAIL|check:|==)' "$W/check.log"
} > "$OUT/n64-summary.md" 2>&1
rm -f "$W"/*.so
tar -cJf "$OUT/n64.tar.xz" -C "$W" . && rm -rf "$W"
cat "$OUT/n64-summary.md"
