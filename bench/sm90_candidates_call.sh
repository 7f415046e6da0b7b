#!/bin/bash
# Host-side candidates of the Hopper forward timed in turns inside a device call (eleventh
# session, h11-fwd90c / h11-fwd90d), with the shims of bench/sm90_candidates_build.sh carried in
# <build>/carry:
# 1. bench/sm90_vs_cudnn.py in turns, cur / candidates / cuDNN at CAND_POINTS, twice, run 2 in
#    reverse order; every lib's outputs compared bit for bit with the first lib's.
# 2. ncu at CAND_NCU_POINTS (duration, DRAM bytes, L2 hit rate, grid), if the time left allows.
# Writes only $OUT/<tag>.tar.xz (logs, JSON, ncu CSV) and $OUT/<tag>-summary.md (at most 8 files
# come back from a call). Needs no scripts/gpu-env.sh. At most ~90 s.
#   CAND_TAG=<tag> CAND_BUILD=<build dir> CAND_NAMES="m r3" CAND_POINTS="D,N,causal;..."
#   CAND_NCU_POINTS="D,N,causal;..." CAND_TITLE="..." [CAND_RUN_S=35] bench/sm90_candidates_call.sh
cd "$(dirname "$0")/.." || exit 1
TAG=${CAND_TAG:?} BUILD=${CAND_BUILD:?} NAMES=(${CAND_NAMES:?})
RUN_S=${CAND_RUN_S:-35}
CALL_BUDGET_S=85  # the whole script, so that it fits beside the caller's own steps
NCU_MIN_S=15      # ncu's launch and replay of a few kernels takes about this long
W=$(mktemp -d "/tmp/$TAG.XXXXXX")
start=$SECONDS
if ! tar -xJf "$BUILD/carry/shims.tar.xz" -C "$W"; then
  echo "$TAG: $BUILD/carry/shims.tar.xz missing (carry $BUILD/carry)" | tee "$OUT/$TAG-summary.md"
  exit 1
fi
libs() { for name in "$@"; do echo "--lib $name=$W/$name.so"; done; }
forward=(cur "${NAMES[@]}")
backward=()
for ((i = ${#forward[@]} - 1; i >= 0; i--)); do backward+=("${forward[i]}"); done
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm --format=csv,noheader > "$W/gpu.txt" 2>&1
S=bench/sm90_vs_cudnn.py
B=(--bench --no-flash --points "${CAND_POINTS:?}" --rounds 20 --same-outputs)
timeout "$RUN_S" python3 $S $(libs "${forward[@]}") "${B[@]}" --json "$W/ab1.json" \
  > "$W/ab1.log" 2>&1
echo "ab1 rc $? at $((SECONDS - start)) s" >> "$W/steps.txt"
timeout "$RUN_S" python3 $S $(libs "${backward[@]}") "${B[@]}" --json "$W/ab2.json" \
  > "$W/ab2.log" 2>&1
echo "ab2 rc $? at $((SECONDS - start)) s" >> "$W/steps.txt"
left=$((CALL_BUDGET_S - (SECONDS - start)))
if [ "$left" -ge "$NCU_MIN_S" ]; then
  M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
  M=$M,lts__t_sector_hit_rate.pct,launch__grid_size
  timeout "$left" ncu --metrics $M --clock-control none -k regex:'forward_kernel|fprop' --csv \
    python3 bench/sm90_small_n_ncu.py $(libs "${forward[@]}") --points "${CAND_NCU_POINTS:?}" \
    > "$W/ncu.csv" 2> "$W/ncu.err"
  echo "ncu rc $? at $((SECONDS - start)) s" >> "$W/steps.txt"
else
  echo "ncu skipped: $left s left" >> "$W/steps.txt"
fi
{
  python3 bench/sm90_candidates_summary.py --candidates "$(IFS=,; echo "${NAMES[*]}")" \
    --title "${CAND_TITLE:?}" "$W"
  echo; echo "GPU: $(cat "$W/gpu.txt")"; echo; sed 's/^/- /' "$W/steps.txt"
} > "$OUT/$TAG-summary.md" 2>&1
rm -f "$W"/*.so
tar -cJf "$OUT/$TAG.tar.xz" -C "$W" . && rm -rf "$W"
cat "$OUT/$TAG-summary.md"
