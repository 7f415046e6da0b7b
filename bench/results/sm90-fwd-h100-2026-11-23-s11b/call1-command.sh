#!/bin/bash
# h11-fwd90b, call 1: where a small-N causal tile waits. Carry: build-h11b/carry.d = three shims of
# bench/sm90_timeline_shim.cu (D = 64 / 128 / 256 bf16), built here by build-h11b/build.sh:
#   timeline = HEAD (7b4a473, v18) with FATTN_SM90_TIMELINE, plain = HEAD without it,
#   hpg1 = HEAD with heads_per_group() returning 1 for every launch (masked ones too: each
#          (batch, head) pair's query tiles side by side, as the unmasked kernels run).
# 1. bench/sm90_timeline.py at N = 512 (D = 128 / 256 causal and not, D = 64 causal) and
#    N = 1k causal: records, summaries, timing in turns of plain / timeline / hpg1 / cuDNN;
#    bench/sm90_timeline_tiles.py on the records.
# 2. ncu (duration, DRAM and L2 bytes, grid) of plain, hpg1 and cuDNN at N = 512.
set -o pipefail
C=build-h11b/carry
# The shims travel as one xz archive (build-h11b/carry.d): three 15 MB files exceed the carry.
mkdir -p $C && tar -xJf build-h11b/carry.d/shims.tar.xz -C $C
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
mkdir -p $OUT/tl
timeout 170 python3 bench/sm90_timeline.py --timeline $C/timeline.so --plain $C/plain.so \
  --extra hpg1=$C/hpg1.so --out $OUT/tl --reps 10 \
  --points "128,512,1;128,512,0;256,512,1;256,512,0;64,512,1;128,1024,1;256,1024,1;64,1024,1" \
  > $OUT/tl.log 2>&1
echo "timeline rc $?"; grep -E "TFLOP/s in turns|bitwise|rel error" $OUT/tl.log
timeout 60 python3 bench/sm90_timeline_tiles.py $OUT/tl > $OUT/tiles.log 2>&1; echo "tiles rc $?"
P="128,512,1;128,512,0;256,512,1;256,512,0;64,512,1"
timeout 40 python3 bench/sm90_small_n_ncu.py --lib cur=$C/plain.so --points "$P" --list-kernels \
  > $OUT/kernels.log 2>&1; echo "kernels rc $?"; grep "^kernel:" $OUT/kernels.log | cut -c1-160
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,launch__grid_size,launch__block_size,launch__registers_per_thread,sm__cycles_active.avg,lts__t_bytes.sum
timeout 150 ncu --metrics $M --clock-control none --csv \
  python3 bench/sm90_small_n_ncu.py --lib cur=$C/plain.so --lib hpg1=$C/hpg1.so --points "$P" \
  > $OUT/ncu.csv 2> $OUT/ncu.err; echo "ncu rc $?"; grep -c forward_kernel $OUT/ncu.csv
cd $OUT && tar -cJf tl-records.tar.xz tl/records-*.bin && rm -f tl/records-*.bin tl/trace-*.json
ls -la $OUT $OUT/tl | head -50
