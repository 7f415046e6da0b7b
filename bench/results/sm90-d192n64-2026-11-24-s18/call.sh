#!/bin/bash
# h18-d192n64 call (prepared in the eighteenth session, for the next): the D = 192 bucket with
# 64-key tiles (candidate-n64.patch: TileConfig<192>.block_n 96 -> 64; candidate-n64s3.patch: the
# same with a third K/V stage, 48 + 3 x 48 KB) timed in turns against main's 96-key kernels (cur)
# and cuDNN: D = 192 at N = 512 / 1k / 2k causal and not, 4k non-causal, B·N = 16k, H = 10, bf16
# and fp16, two passes (the second reversed). First the 25 correctness cases of check_d192.py
# (fp32 reference) for every contestant, then memcheck of both candidates on its small cases.
# Writes $OUT/d192n64-summary.md and $OUT/d192n64.tar.xz (two files: the run tool returns 8).
#   D192N64_BUILD=build-h18-d192n64 bash build-h18-d192n64/call/call.sh
#   run tool: carry ["build-h18-d192n64/carry", "build-h18-d192n64/call"], timeout_s 125
HERE=$(cd "$(dirname "$0")" && pwd)
source scripts/gpu-env.sh 2>/dev/null
BUILD=${D192N64_BUILD:-build-h18-d192n64}
NAMES=(cur n64 n64s3)
W=$(mktemp -d /tmp/d192n64.XXXXXX)
L=$W/steps.txt
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm,power.limit --format=csv,noheader > "$W/gpu.txt" 2>&1
tar -xJf "$BUILD/carry/shims.tar.xz" -C "$W" || { echo "no shims" | tee "$OUT/d192n64-summary.md"; exit 1; }
libs() { for n in "$@"; do echo "--lib $n=$W/$n.so"; done; }
timeout 40 python3 "$HERE/check_d192.py" $(libs "${NAMES[@]}") --json "$W/check.json" > "$W/check.log" 2>&1
echo "check rc $? at $((SECONDS - start)) s: $(grep -c '^PASS' "$W/check.log") PASS, $(grep -c '^FAIL' "$W/check.log") FAIL" >> "$L"
P="192,512,1;192,512,0;192,1024,1;192,1024,0;192,2048,1;192,2048,0;192,4096,0"
S=bench/sm90_vs_cudnn.py
rev=(); for ((i = ${#NAMES[@]} - 1; i >= 0; i--)); do rev+=("${NAMES[i]}"); done
for run in run1 run2; do
  if [ $run = run1 ]; then order=("${NAMES[@]}"); else order=("${rev[@]}"); fi
  for dtype in bf16 fp16; do
    if [ $((SECONDS - start)) -gt 92 ]; then echo "$run $dtype skipped at $((SECONDS - start)) s" >> "$L"; continue; fi
    timeout 22 python3 $S $(libs "${order[@]}") --bench --no-flash --dtype $dtype --points "$P" \
      --rounds 15 --json "$W/$run-$dtype.json" > "$W/$run-$dtype.log" 2>&1
    echo "$run $dtype rc $? at $((SECONDS - start)) s" >> "$L"
  done
done
left=$((112 - (SECONDS - start)))
if [ $left -ge 10 ]; then
  timeout $left compute-sanitizer --tool memcheck --error-exitcode 1 python3 "$HERE/check_d192.py" \
    $(libs n64 n64s3) --small > "$W/memcheck.log" 2>&1
  echo "memcheck rc $? at $((SECONDS - start)) s: $(grep -E 'ERROR SUMMARY' "$W/memcheck.log" | tr '\n' ' ')" >> "$L"
fi
{
  echo "# h18-d192n64 call: cur (96-key tiles) / n64 / n64s3 (64-key tiles, 2 / 3 stages) / cuDNN, D = 192"; echo
  python3 bench/sm90_candidates_summary.py "$W" "$(IFS=,; echo "${NAMES[*]}")"
  echo; echo "GPU: $(cat "$W/gpu.txt")"; echo; sed 's/^/- /' "$L"
  echo; grep -E '^(FAIL|check:|==)' "$W/check.log"
} > "$OUT/d192n64-summary.md" 2>&1
rm -f "$W"/*.so
tar -cJf "$OUT/d192n64.tar.xz" -C "$W" . && rm -rf "$W"
cat "$OUT/d192n64-summary.md"
