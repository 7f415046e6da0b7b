#!/bin/bash
# Twenty-third session, call 3 (diagnostic, nothing changes in the library): why did the staged
# O stores of the Hopper heads-as-columns kernels lose at work widths 80 / 96 / 240 (twenty-second
# session, x0.79-0.975)? Two shims: "all" = main with staging at every V-ring width
# (kWidestStagedOutputWidth = 256), "main" = main (register pairs at those widths). ncu of each
# at packed bf16 D = 74 / 90 / 234 (4-byte rows; widths 80 / 96 / 240), N = 2048, non-causal.
# Carry build-s23-ostage (the two source tarballs).
source scripts/gpu-env.sh 2>/dev/null
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
for t in old all; do
  mkdir -p /tmp/tree-$t && tar xzf build-s23-ostage/$t-tree.tar.gz -C /tmp/tree-$t || exit 1
  ( SM90_SOURCE_ROOT=/tmp/tree-$t bench/sm90_build.sh /tmp/sh-$t 8 > "$OUT/shim-$t.log" 2>&1 ) &
done
wait
tail -n 1 "$OUT"/shim-*.log
echo "== $(date +%T) (at $SECONDS s) shims built"
timeout 120 python3 bench/sm90_vs_cudnn.py --lib all=/tmp/sh-all/libsm90shim.so --lib old=/tmp/sh-old/libsm90shim.so \
  --bench --dims 74,90,234 --seqlens 2048 --dtype bf16 --causal 0 --rounds 6 --same-outputs --no-flash 2>&1 \
  | grep -v Warning | tail -12
for D in 74 90 234; do
  for t in old all; do
    timeout 100 ncu --clock-control none -k regex:forward_kernel -s 1 -c 1 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
      --section SchedulerStats --section InstructionStats --section LaunchStats --section Occupancy \
      --section SourceCounters \
      python3 bench/sm90_vs_cudnn.py --lib $t=/tmp/sh-$t/libsm90shim.so --profile $D,2048,0 \
      > "$OUT/ncu-d$D-$t.txt" 2>&1
    echo "== $(date +%T) ncu D=$D $t rc $?"
    grep -E "Duration|Registers Per|Warp Cycles Per Issued|Issue Slots Busy|Executed Instructions  |Shared Memory Configuration Size|Dynamic Shared|L2 Compression Input|Mem Busy|Max Bandwidth|DRAM Throughput|Achieved Occupancy|Stall" "$OUT/ncu-d$D-$t.txt" | head -16
  done
done
cd "$OUT" && tar czf ncu.tgz --remove-files ncu-d*.txt shim-*.log
