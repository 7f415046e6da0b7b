#!/bin/bash
# One device call that times Hopper-forward candidates (shims of bench/sm90_candidates_build.sh,
# carried in <build>/carry/shims.tar.xz) against main's kernels (cur) and cuDNN:
# 1. with CAND_CHECK (a results folder's check script on sm90_check_cases.py): every contestant
#    against the fp32 reference;
# 2. bench/sm90_vs_cudnn.py in turns at CAND_POINTS for each of CAND_DTYPES, twice, the second
#    pass in reverse order; the first compares every lib's outputs bit for bit with cur's;
# 3. with CAND_MEMCHECK (contestant names): compute-sanitizer memcheck of CAND_CHECK's small cases;
# 4. with CAND_NCU_POINTS and the time left: ncu (duration, DRAM bytes, L2 hit rate, grid).
# Each step starts only while the call is inside CAND_BUDGET_S (default 110 s, for a 125 s
# run-tool timeout). Writes $OUT/<tag>-summary.md (bench/sm90_candidates_summary.py: per-run and
# per-point ratios to cur and cuDNN, the ncu table) and $OUT/<tag>.tar.xz (logs, JSON, CSV):
# two files, as at most 8 come back from a call.
#   CAND_TAG=<tag> CAND_BUILD=<build dir> CAND_NAMES="n64 n64s3" CAND_POINTS="D,N,causal;..."
#   CAND_TITLE="..." [CAND_DTYPES="bf16 fp16"] [CAND_CHECK=<script>] [CAND_MEMCHECK="n64"]
#   [CAND_NCU_POINTS="D,N,causal;..."] [CAND_RUN_S=22] [CAND_BUDGET_S=110] bench/sm90_candidates_call.sh
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu-env.sh 2>/dev/null
TAG=${CAND_TAG:?} BUILD=${CAND_BUILD:?} NAMES=(cur ${CAND_NAMES:?}) POINTS=${CAND_POINTS:?}
DTYPES=(${CAND_DTYPES:-bf16 fp16})
RUN_S=${CAND_RUN_S:-22}
BUDGET_S=${CAND_BUDGET_S:-110}
CHECK_S=40        # the check scripts' 15-25 cases for three contestants take ~10 s
MIN_STEP_S=10     # a sanitizer or ncu step shorter than this reports nothing useful
W=$(mktemp -d "/tmp/$TAG.XXXXXX")
L=$W/steps.txt
start=$SECONDS
left() { echo $((BUDGET_S - (SECONDS - start))); }
if ! tar -xJf "$BUILD/carry/shims.tar.xz" -C "$W"; then
  echo "$TAG: $BUILD/carry/shims.tar.xz missing (carry $BUILD/carry)" | tee "$OUT/$TAG-summary.md"
  exit 1
fi
libs() { for name in "$@"; do echo "--lib $name=$W/$name.so"; done; }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm,power.limit --format=csv,noheader \
  > "$W/gpu.txt" 2>&1
if [ -n "${CAND_CHECK:-}" ]; then
  timeout $CHECK_S python3 "$CAND_CHECK" $(libs "${NAMES[@]}") --json "$W/check.json" \
    > "$W/check.log" 2>&1
  echo "check rc $? at $((SECONDS - start)) s: $(grep -c '^PASS' "$W/check.log") PASS," \
    "$(grep -c '^FAIL' "$W/check.log") FAIL" >> "$L"
fi
reversed=()
for ((i = ${#NAMES[@]} - 1; i >= 0; i--)); do reversed+=("${NAMES[i]}"); done
for run in run1 run2; do
  if [ $run = run1 ]; then order=("${NAMES[@]}") same=--same-outputs
  else order=("${reversed[@]}") same=; fi
  for dtype in "${DTYPES[@]}"; do
    if [ "$(left)" -lt "$RUN_S" ]; then echo "$run $dtype skipped at $((SECONDS - start)) s" >> "$L"; continue; fi
    timeout "$RUN_S" python3 bench/sm90_vs_cudnn.py $(libs "${order[@]}") --bench --no-flash \
      --dtype "$dtype" --points "$POINTS" --rounds 15 $same --json "$W/$run-$dtype.json" \
      > "$W/$run-$dtype.log" 2>&1
    echo "$run $dtype rc $? at $((SECONDS - start)) s" >> "$L"
  done
done
if [ -n "${CAND_MEMCHECK:-}" ] && [ "$(left)" -ge $MIN_STEP_S ]; then
  timeout "$(left)" compute-sanitizer --tool memcheck --error-exitcode 1 python3 "$CAND_CHECK" \
    $(libs $CAND_MEMCHECK) --small > "$W/memcheck.log" 2>&1
  echo "memcheck rc $? at $((SECONDS - start)) s: $(grep -E 'ERROR SUMMARY' "$W/memcheck.log" | tr '\n' ' ')" >> "$L"
fi
if [ -n "${CAND_NCU_POINTS:-}" ] && [ "$(left)" -ge $MIN_STEP_S ]; then
  M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
  M=$M,lts__t_sector_hit_rate.pct,launch__grid_size
  timeout "$(left)" ncu --metrics $M --clock-control none -k regex:'forward_kernel|fprop' --csv \
    python3 bench/sm90_small_n_ncu.py $(libs "${NAMES[@]}") --points "$CAND_NCU_POINTS" \
    > "$W/ncu.csv" 2> "$W/ncu.err"
  echo "ncu rc $? at $((SECONDS - start)) s" >> "$L"
fi
{
  echo "# ${CAND_TITLE:?}"; echo
  python3 bench/sm90_candidates_summary.py "$W" "$(IFS=,; echo "${NAMES[*]}")"
  echo; echo "GPU: $(cat "$W/gpu.txt")"; echo; sed 's/^/- /' "$L"
  [ -f "$W/check.log" ] && { echo; grep -E '^(FAIL|check:|==)' "$W/check.log"; }
  [ -f "$W/ncu.csv" ] && python3 -c "import sys; sys.path.insert(0, 'bench'); import sm90_candidates_summary as s; s.ncu_section(sys.argv[1])" "$W"
} > "$OUT/$TAG-summary.md" 2>&1
rm -f "$W"/*.so
tar -cJf "$OUT/$TAG.tar.xz" -C "$W" . && rm -rf "$W"
cat "$OUT/$TAG-summary.md"
