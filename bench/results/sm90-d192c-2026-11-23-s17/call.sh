#!/bin/bash
# h17-d192c: the 192 bucket's small-N causal candidates (candidate-*.patch, NOTES.md) timed in
# turns against main's D = 192 kernel (cur) and cuDNN (SDPA): D = 192 causal N = 512 / 1k / 2k /
# 4k and non-causal 1k (B = 16384 / N, H = 10), bf16 and fp16, two passes (the second in reverse
# order; the first also compares every output with cur's bit for bit). Before that the
# D = 129..192 correctness checks of every contestant (25 cases, fp32 reference), after it
# compute-sanitizer memcheck of asck and ascc on the small cases, then (with the time left) ncu
# of cur / opg / asc / cuDNN at 512 and 1k causal. At most ~112 s with the carried shims.
# Writes $OUT/d192c-summary.md and $OUT/d192c.tar.xz.
# From the repository root, with this directory copied into the carried build dir:
#   D192C_BUILD=build-h17-d192c bash build-h17-d192c/d192c/call.sh
# run tool: carry ["build-h17-d192c"] (.deps not needed: no CMake build), timeout_s 120.
HERE=$(cd "$(dirname "$0")" && pwd)
source scripts/gpu-env.sh 2>/dev/null
BUILD=${D192C_BUILD:-build-h17-d192c}
NAMES=(cur opg asc asck ascc)
W=$(mktemp -d /tmp/d192c.XXXXXX)
L=$W/steps.txt
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm,power.limit --format=csv,noheader > "$W/gpu.txt" 2>&1
if ! tar -xJf "$BUILD/carry/shims.tar.xz" -C "$W" 2>/dev/null; then
  # Not expected (the shims are built at the desk and carried): build them here, 16 jobs.
  echo "no carry: building the shims here" >> "$L"
  timeout 70 bash "$HERE/build.sh" "$BUILD" worktree 16 opg asc asck ascc > "$W/build.log" 2>&1
  echo "build rc $? at $((SECONDS - start)) s" >> "$L"
  tar -xJf "$BUILD/carry/shims.tar.xz" -C "$W" || { cat "$L" | tee "$OUT/d192c-summary.md"; exit 1; }
fi
libs() { for n in "$@"; do echo "--lib $n=$W/$n.so"; done; }
# 1. correctness, every contestant (fp32 reference; 25 cases each)
left=32; [ $((SECONDS - start)) -gt 30 ] && left=15  # shorter after a build here
timeout $left python3 "$HERE/check_d192.py" $(libs "${NAMES[@]}") --json "$W/check.json" > "$W/check.log" 2>&1
echo "check rc $? at $((SECONDS - start)) s: $(grep -c '^PASS' "$W/check.log") PASS, $(grep -c '^FAIL' "$W/check.log") FAIL" >> "$L"
# 2. timing in turns, twice (run 2 reversed); run 1 also checks the outputs against cur's bitwise
P="192,512,1;192,1024,1;192,2048,1;192,4096,1;192,1024,0"
S=bench/sm90_vs_cudnn.py
rev=(); for ((i = ${#NAMES[@]} - 1; i >= 0; i--)); do rev+=("${NAMES[i]}"); done
for run in run1 run2; do
  if [ $run = run1 ]; then order=("${NAMES[@]}"); same=--same-outputs; else order=("${rev[@]}"); same=; fi
  for dtype in bf16 fp16; do
    # Keep the summary inside the run tool's 120 s (a pass takes ~10-13 s).
    if [ $((SECONDS - start)) -gt 86 ]; then echo "$run $dtype skipped at $((SECONDS - start)) s" >> "$L"; continue; fi
    timeout 20 python3 $S $(libs "${order[@]}") --bench --no-flash --dtype $dtype --points "$P" \
      --rounds 20 $same --json "$W/$run-$dtype.json" > "$W/$run-$dtype.log" 2>&1
    echo "$run $dtype rc $? at $((SECONDS - start)) s" >> "$L"
  done
done
# 3. memcheck of two candidates on the small cases, at most 30 s (and <= 108 s in all)
left=$((108 - (SECONDS - start)))
[ $left -gt 30 ] && left=30
if [ $left -ge 15 ]; then
  timeout $left compute-sanitizer --tool memcheck --error-exitcode 1 python3 "$HERE/check_d192.py" \
    $(libs asck ascc) --small > "$W/memcheck.log" 2>&1
  echo "memcheck rc $? at $((SECONDS - start)) s: $(grep -E 'ERROR SUMMARY' "$W/memcheck.log" | tr '\n' ' ') $(grep -c '^PASS' "$W/memcheck.log") PASS" >> "$L"
else
  echo "memcheck skipped: $left s left" >> "$L"
fi
# 4. optional, with the time left (<= 110 s in all): ncu of cur / opg / asc / cuDNN at 512 and
#    1k causal, two launches each (duration, DRAM bytes: is K/V read from HBM more than once?)
left=$((110 - (SECONDS - start)))
if [ $left -ge 15 ]; then
  M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
  M=$M,lts__t_sector_hit_rate.pct,launch__grid_size
  timeout $left ncu --metrics $M --clock-control none -k regex:'forward_kernel|fprop' --csv \
    python3 bench/sm90_small_n_ncu.py $(libs cur opg asc) --points "192,512,1;192,1024,1" \
    > "$W/ncu.csv" 2> "$W/ncu.err"
  echo "ncu rc $? at $((SECONDS - start)) s" >> "$L"
else
  echo "ncu skipped: $left s left" >> "$L"
fi
{
  echo "# h17-d192c call: cur / opg / asc / asck / ascc / cuDNN, D = 192"; echo
  python3 "$HERE/summary.py" "$W" "$(IFS=,; echo "${NAMES[*]}")"
  echo; echo "GPU: $(cat "$W/gpu.txt")"; echo; sed 's/^/- /' "$L"
  echo; grep -E '^(FAIL|check:|==)' "$W/check.log"
  python3 -c "import sys; sys.path.insert(0, 'bench'); import sm90_candidates_summary as s; s.ncu_section(sys.argv[1])" "$W"
} > "$OUT/d192c-summary.md" 2>&1
rm -f "$W"/*.so
tar -cJf "$OUT/d192c.tar.xz" -C "$W" . && rm -rf "$W"
cat "$OUT/d192c-summary.md"
