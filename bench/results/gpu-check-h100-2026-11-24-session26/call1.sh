#!/bin/bash
# Twenty-sixth session, call 1 (#6): the Hopper forward's scheduler group size at large-N causal
# launches. One shim (bench/sm90_group_scan_build.sh on main, built on the desk) whose group size
# is set at run time; every group size timed in turns beside cuDNN, outputs bit for bit the rule's;
# then ncu (DRAM bytes, L2 hit rate) at D = 128 16k causal (whole boxes) and D = 144 (partial box).
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
xz -dc build-gscan/carry/g.so.xz > /tmp/g.so
cd bench
P='128,16384,1;128,8192,1;128,4096,1;64,16384,1;64,4096,1;256,16384,1;256,4096,1;144,16384,1;128,16384,0'
python3 sm90_group_scan.py --lib /tmp/g.so --points "$P" --groups 0,1,2,4,8,16 --runs 2 \
  > $OUT/scan.txt 2>&1; echo "scan rc $?"; tail -12 $OUT/scan.txt
M=gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
for spec in 128,16384,1,0 128,16384,1,1 128,16384,1,4 144,16384,1,0 144,16384,1,14 64,16384,1,0 64,16384,1,1; do
  timeout 100 ncu --clock-control none --nvtx --nvtx-include "ours/" --metrics $M --csv \
    python3 sm90_group_scan.py --lib /tmp/g.so --profile $spec > $OUT/ncu-$spec.csv 2>&1
  echo "== ncu $spec rc $?"; grep -v "^==" $OUT/ncu-$spec.csv | tail -n +2 | awk -F'","' '{print $(NF-2), $NF}' | head -12
done
