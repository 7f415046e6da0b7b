#!/bin/bash
# h11-fwd90d: D = 256 small-N masked launches (host-side candidates), timed in turns inside the
# lead's device call. Carry: build-h11d/carry (shims.tar.xz: bench/sm90_timeline_shim.cu built
# without the timeline, bf16 D = 64 / 128 / 256, by build-shims.sh in this folder):
#   cur  = HEAD 134511b's src (v20),
#   g33  = HEAD + candidate-g33.patch (D = 256 masked launches of <= 4 query tiles per pair:
#          groups of one grid round, 33 pairs at N = 512, instead of one pair),
#   c128 = HEAD + candidate-c128.patch (D = 256 masked launches of <= 8 query tiles per pair:
#          a grid of as few CTAs as take the same rounds, 128 for the sweep's 1,024 tiles).
# Kernels byte-identical to cur's in both (host code only).
# 1. bench/sm90_vs_cudnn.py in turns, cur / g33 / c128 / cuDNN, D = 256 causal N = 512, 1k, 2k
#    and non-causal 512 (2k and non-causal: identical launches in all three, the controls),
#    twice, run 2 in reverse order; every lib's outputs compared bit for bit with the first's.
# 2. ncu at D = 256 N = 512 causal and 1k causal (duration, DRAM bytes, grid), if time allows.
# Writes only $OUT/fwd90d.tar.xz (logs, JSON, ncu CSV) and $OUT/fwd90d-summary.md.
# ~40 s expected, at most ~90 s.
#   bash bench/results/sm90-fwd-h100-2026-11-23-s11d/call-command.sh
cd "$(dirname "$0")/../../.." || exit 1
R=bench/results/sm90-fwd-h100-2026-11-23-s11d
W=$(mktemp -d /tmp/fwd90d.XXXXXX)
start=$SECONDS
if ! tar -xJf build-h11d/carry/shims.tar.xz -C "$W"; then
  echo "fwd90d: build-h11d/carry/shims.tar.xz missing (carry build-h11d/carry)" |
    tee "$OUT/fwd90d-summary.md"
  exit 1
fi
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm --format=csv,noheader > "$W/gpu.txt" 2>&1
S=bench/sm90_vs_cudnn.py
B=(--bench --no-flash --points "256,512,1;256,1024,1;256,2048,1;256,512,0" --rounds 20
   --same-outputs)
timeout 30 python3 $S --lib cur="$W/cur.so" --lib g33="$W/g33.so" --lib c128="$W/c128.so" \
  "${B[@]}" --json "$W/ab1.json" > "$W/ab1.log" 2>&1
echo "ab1 rc $? at $((SECONDS - start)) s" >> "$W/steps.txt"
timeout 30 python3 $S --lib c128="$W/c128.so" --lib g33="$W/g33.so" --lib cur="$W/cur.so" \
  "${B[@]}" --json "$W/ab2.json" > "$W/ab2.log" 2>&1
echo "ab2 rc $? at $((SECONDS - start)) s" >> "$W/steps.txt"
left=$((85 - (SECONDS - start)))
if [ "$left" -ge 15 ]; then
  M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
  M=$M,lts__t_sector_hit_rate.pct,launch__grid_size
  timeout "$left" ncu --metrics $M --clock-control none -k regex:'forward_kernel|fprop' --csv \
    python3 bench/sm90_small_n_ncu.py --lib cur="$W/cur.so" --lib g33="$W/g33.so" \
    --lib c128="$W/c128.so" --points "256,512,1;256,1024,1" > "$W/ncu.csv" 2> "$W/ncu.err"
  echo "ncu rc $? at $((SECONDS - start)) s" >> "$W/steps.txt"
else
  echo "ncu skipped: $left s left" >> "$W/steps.txt"
fi
{
  python3 $R/summarize.py "$W"
  echo; echo "GPU: $(cat "$W/gpu.txt")"; echo; sed 's/^/- /' "$W/steps.txt"
} > "$OUT/fwd90d-summary.md" 2>&1
rm -f "$W"/*.so
tar -cJf "$OUT/fwd90d.tar.xz" -C "$W" . && rm -rf "$W"
cat "$OUT/fwd90d-summary.md"
