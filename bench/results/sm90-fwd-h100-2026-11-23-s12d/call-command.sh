#!/bin/bash
# h12-fwd90d, call 1. Carry: .deps, build-h12fwd90d/carry (tl.tar.xz: bench/sm90_timeline_build.sh
# on HEAD 24e17d8's src: timeline/ and plain/ libsm90timeline.so).
# 1. bench/sm90_timeline.py at D = 128 and 64, N = 512 causal and non-causal, 2k non-causal and
#    causal (steady-state reference); records come back for analyze_steps.py / analyze_tiles.py.
# 2. ncu durations of the plain shim and cuDNN at the same points (bench/sm90_small_n_ncu.py).
source scripts/gpu-env.sh; set -o pipefail
W=/tmp/tlw; mkdir -p $W /tmp/tl
tar -xJf build-h12fwd90d/carry/tl.tar.xz -C $W
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm --format=csv,noheader > /tmp/tl/gpu.txt 2>&1
P="128,512,1;128,512,0;64,512,1;64,512,0;128,2048,1;128,2048,0;64,2048,1;64,2048,0"
timeout 100 python3 bench/sm90_timeline.py --timeline $W/timeline/libsm90timeline.so \
  --plain $W/plain/libsm90timeline.so --out /tmp/tl --reps 4 --points "$P" > /tmp/tl/tl.log 2>&1
echo "timeline rc $? at ${SECONDS} s"; grep -E "TFLOP/s in turns|bitwise" /tmp/tl/tl.log | head -20
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size
timeout 45 ncu --metrics $M --clock-control none -k regex:'forward_kernel|fprop' --csv \
  python3 bench/sm90_small_n_ncu.py --lib cur=$W/plain/libsm90timeline.so --points "$P" \
  > /tmp/tl/ncu.csv 2> /tmp/tl/ncu.err
echo "ncu rc $? at ${SECONDS} s"
timeout 20 python3 bench/sm90_timeline_tiles.py /tmp/tl > /tmp/tl/tiles.log 2>&1; echo "tiles rc $?"
rm -f /tmp/tl/trace-*.json
tar -cJf $OUT/tl.tar.xz -C /tmp/tl . ; ls -la $OUT
