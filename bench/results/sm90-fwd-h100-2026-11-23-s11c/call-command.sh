#!/bin/bash
# h11-fwd90c: scheduler groups for the masked D = 64 forward at small N, timed in turns inside the
# lead's device call. Carry: build-h11c/carry (shims.tar.xz, 3.3 MB: bench/sm90_timeline_shim.cu
# built without the timeline, bf16 D = 64 / 128 / 256, by build-shims.sh in this folder):
#   cur = HEAD 4d6ec8e's src (v19), m = HEAD + candidate-m.patch, r3 = HEAD + candidate-r3.patch
# (host-side only: the groups of masked D = 64 launches of <= 6 / <= 8 query tiles per pair).
# 1. bench/sm90_vs_cudnn.py in turns, cur / m / r3 / cuDNN, D = 64 causal N = 512, 1k, 2k, 4k and
#    non-causal 512 (2k, 4k and non-causal: identical launches, the controls), twice, run 2 in
#    reverse order; every lib's outputs compared bit for bit with the first lib's.
# 2. ncu at D = 64 N = 512 causal (duration, DRAM bytes), if the time left allows.
# Writes only $OUT/fwd90c.tar.xz (logs, JSON, ncu CSV) and $OUT/fwd90c-summary.md. ~60 s, at most
# ~90 s.
#   bash bench/results/sm90-fwd-h100-2026-11-23-s11c/call-command.sh
cd "$(dirname "$0")/../../.." || exit 1
R=bench/results/sm90-fwd-h100-2026-11-23-s11c
W=$(mktemp -d /tmp/fwd90c.XXXXXX)
start=$SECONDS
if ! tar -xJf build-h11c/carry/shims.tar.xz -C "$W"; then
  echo "fwd90c: build-h11c/carry/shims.tar.xz missing (carry build-h11c/carry)" |
    tee "$OUT/fwd90c-summary.md"
  exit 1
fi
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm --format=csv,noheader > "$W/gpu.txt" 2>&1
S=bench/sm90_vs_cudnn.py
B=(--bench --no-flash --points "64,512,1;64,1024,1;64,2048,1;64,4096,1;64,512,0" --rounds 20
   --same-outputs)
timeout 35 python3 $S --lib cur="$W/cur.so" --lib m="$W/m.so" --lib r3="$W/r3.so" "${B[@]}" \
  --json "$W/ab1.json" > "$W/ab1.log" 2>&1
echo "ab1 rc $? at $((SECONDS - start)) s" >> "$W/steps.txt"
timeout 35 python3 $S --lib r3="$W/r3.so" --lib m="$W/m.so" --lib cur="$W/cur.so" "${B[@]}" \
  --json "$W/ab2.json" > "$W/ab2.log" 2>&1
echo "ab2 rc $? at $((SECONDS - start)) s" >> "$W/steps.txt"
left=$((85 - (SECONDS - start)))
if [ "$left" -ge 15 ]; then
  M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
  M=$M,lts__t_sector_hit_rate.pct,launch__grid_size
  timeout "$left" ncu --metrics $M --clock-control none -k regex:'forward_kernel|fprop' --csv \
    python3 bench/sm90_small_n_ncu.py --lib cur="$W/cur.so" --lib m="$W/m.so" --lib r3="$W/r3.so" \
    --points "64,512,1" > "$W/ncu.csv" 2> "$W/ncu.err"
  echo "ncu rc $? at $((SECONDS - start)) s" >> "$W/steps.txt"
else
  echo "ncu skipped: $left s left" >> "$W/steps.txt"
fi
{
  python3 $R/summarize.py "$W"
  echo; echo "GPU: $(cat "$W/gpu.txt")"; echo; sed 's/^/- /' "$W/steps.txt"
} > "$OUT/fwd90c-summary.md" 2>&1
rm -f "$W"/*.so
tar -cJf "$OUT/fwd90c.tar.xz" -C "$W" . && rm -rf "$W"
cat "$OUT/fwd90c-summary.md"
