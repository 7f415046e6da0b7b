#!/bin/bash
# h17-n512: the L2 prefetch candidates (candidate-pf / pfa / pfs.patch; NOTES.md) timed
# in turns against main's kernels (cur) and cuDNN (SDPA), bf16, B·N = 16k, H·D = 2048:
# 1. check_n512.py: 16 cases per contestant against the fp32 reference (causal multi-round
#    small-N launches: Nq = Nk, Nq > Nk, Nq < Nk, GQA, ragged, one-step tiles, widths 96 / 120 /
#    240, padded rows, BHSD; 2k causal; unchanged kernels: sector boxes, window, non-causal, D = 64).
# 2. bench/sm90_vs_cudnn.py in turns, cur / pf / pfa / pfs / cuDNN at D = 64 / 128 / 256 × N = 512 / 1k
#    × causal and not, + D = 256 2k causal (a changed kernel with the prefetch off at run time),
#    20 rounds; run 1 in that order with --same-outputs (bitwise against cur), run 2 reversed.
# 3. run 3 (forward order) if it fits, then compute-sanitizer memcheck of pf (the prefetch at
#    the most steps) on three cases: D = 256 causal N = 512 GQA 4 (7-step tiles, 2 rounds),
#    D = 128 Nq 1013 > Nk 600 GQA 3 (fully masked rows), D = 256 Nq 600 < Nk 1013 GQA 4
#    (<= 25 s; the s16 D = 192 call's memcheck of 2 shims on 8 cases took 7 s).
# 4. run 4 (reversed) if the time allows, then ncu (duration, DRAM bytes, L2 hit rate) of
#    cur / pf / pfa / pfs / cuDNN at D = 256 / 128 N = 512 causal with what is left.
# At most ~112 s with the carried shims. Writes $OUT/n512-summary.md and $OUT/n512.tar.xz.
# From the repository root, with this directory copied into the carried build dir:
#   N512_BUILD=build-h17-n512 bash build-h17-n512/n512/call.sh
# run tool: carry ["build-h17-n512"] (.deps not needed: no CMake build), timeout_s 120.
HERE=$(cd "$(dirname "$0")" && pwd)
source scripts/gpu-env.sh 2>/dev/null
BUILD=${N512_BUILD:-build-h17-n512}
NAMES=(cur pf pfa pfs)
W=$(mktemp -d /tmp/n512.XXXXXX)
L=$W/steps.txt
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm,power.limit --format=csv,noheader > "$W/gpu.txt" 2>&1
if ! tar -xJf "$BUILD/carry/shims.tar.xz" -C "$W" 2>/dev/null; then
  # Not expected (the shims are built at the desk and carried): build them here, 16 jobs.
  echo "no carry: building the shims here" >> "$L"
  timeout 75 bash "$HERE/build.sh" "$BUILD" worktree 16 pf pfa pfs > "$W/build.log" 2>&1
  echo "build rc $? at $((SECONDS - start)) s" >> "$L"
  tar -xJf "$BUILD/carry/shims.tar.xz" -C "$W" || { cat "$L" | tee "$OUT/n512-summary.md"; exit 1; }
fi
libs() { for n in "$@"; do echo "--lib $n=$W/$n.so"; done; }
# 1. correctness, every contestant
left=30; [ $((SECONDS - start)) -gt 30 ] && left=15  # shorter after a build here
timeout $left python3 "$HERE/check_n512.py" $(libs "${NAMES[@]}") --json "$W/check.json" > "$W/check.log" 2>&1
echo "check rc $? at $((SECONDS - start)) s: $(grep -c '^PASS' "$W/check.log") PASS, $(grep -c '^FAIL' "$W/check.log") FAIL" >> "$L"
# 2. timing in turns
P="128,512,1;128,1024,1;256,512,1;256,1024,1;64,512,1;64,1024,1;128,512,0;128,1024,0"
P="$P;256,512,0;256,1024,0;64,512,0;64,1024,0;256,2048,1"
S=bench/sm90_vs_cudnn.py
rev=(); for ((i = ${#NAMES[@]} - 1; i >= 0; i--)); do rev+=("${NAMES[i]}"); done
pass() {  # pass <run> <limit s> <order...>
  local run=$1 limit=$2; shift 2
  local same=; [ $run = run1 ] && same=--same-outputs
  timeout $limit python3 $S $(libs "$@") --bench --no-flash --points "$P" --rounds 20 $same \
    --json "$W/$run.json" > "$W/$run.log" 2>&1
  echo "$run rc $? at $((SECONDS - start)) s" >> "$L"
}
pass run1 25 "${NAMES[@]}"
pass run2 22 "${rev[@]}"
if [ $((SECONDS - start)) -le 66 ]; then pass run3 18 "${NAMES[@]}"; else echo "run3 skipped" >> "$L"; fi
# 3. memcheck of pf on three cases
left=$((100 - (SECONDS - start))); [ $left -gt 25 ] && left=25
if [ $left -ge 12 ]; then
  timeout $left compute-sanitizer --tool memcheck --error-exitcode 1 python3 "$HERE/check_n512.py" \
    $(libs pf) --small > "$W/memcheck.log" 2>&1
  echo "memcheck rc $? at $((SECONDS - start)) s: $(grep -E 'ERROR SUMMARY' "$W/memcheck.log" | tr '\n' ' ') $(grep -c '^PASS' "$W/memcheck.log") PASS" >> "$L"
else
  echo "memcheck skipped: $left s left" >> "$L"
fi
# 4. run 4 if it fits (a pass takes ~13-18 s), then ncu with what is left (<= 110 s in all)
if [ $((SECONDS - start)) -le 92 ]; then pass run4 17 "${rev[@]}"; else echo "run4 skipped" >> "$L"; fi
left=$((110 - (SECONDS - start)))
if [ $left -ge 12 ]; then
  M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
  M=$M,lts__t_sector_hit_rate.pct,launch__grid_size
  timeout $left ncu --metrics $M --clock-control none -k regex:'forward_kernel|fprop' --csv \
    python3 bench/sm90_small_n_ncu.py $(libs "${NAMES[@]}") --points "256,512,1;128,512,1" \
    > "$W/ncu.csv" 2> "$W/ncu.err"
  echo "ncu rc $? at $((SECONDS - start)) s" >> "$L"
else
  echo "ncu skipped: $left s left" >> "$L"
fi
{
  echo "# h17-n512 call: cur / pf / pfa / pfs / cuDNN (L2 prefetch of key tiles ahead, small-N causal)"; echo
  python3 "$HERE/summary.py" "$W" "$(IFS=,; echo "${NAMES[*]}")"
  echo; echo "GPU: $(cat "$W/gpu.txt")"; echo; sed 's/^/- /' "$L"
  echo; grep -E '^(FAIL|==)' "$W/check.log"; grep -E 'ERROR SUMMARY|^FAIL' "$W/memcheck.log" 2>/dev/null
  python3 -c "import sys; sys.path.insert(0, 'bench'); import sm90_candidates_summary as s; s.ncu_section(sys.argv[1])" "$W"
} > "$OUT/n512-summary.md" 2>&1
rm -f "$W"/*.so
tar -cJf "$OUT/n512.tar.xz" -C "$W" . && rm -rf "$W"
cat "$OUT/n512-summary.md"
