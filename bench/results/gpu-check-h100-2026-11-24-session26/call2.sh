#!/bin/bash
# Twenty-sixth session, call 2 (#6): call 1 found the large-N causal group sizes' speed tracks the
# static schedule's simulated balance (one-pair groups 0.56-0.65 at 8-16 pairs), and the v36 rule
# (partial-box causal launches on one-pair groups) 0.87x cuDNN at D = 144 16k B = 1 H = 14, where
# the whole-launch group ran 1.57x faster. This scans partial-box causal launches over shapes
# (pair counts) and group sizes, to choose a rule that is balanced and keeps few pairs in flight.
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
xz -dc build-gscan/carry/g.so.xz > /tmp/g.so
cd bench
P='144,16384,1,1,14;144,16384,1,2,16;144,16384,1,3,16;144,16384,1,4,16;240,16384,1,1,8;240,16384,1,4,16'
P="$P;136,16384,1,1,15;136,16384,1,4,16;144,8192,1,2,16;144,8192,1,3,14;144,4096,1,4,16;144,4096,1,3,16"
P="$P;144,4096,1,4,14;136,2048,1,16,16;136,2048,1,8,15;160,16384,1,1,12"
python3 sm90_group_scan.py --lib /tmp/g.so --points "$P" --groups 0,1,2,4,8,16,33 --runs 2 \
  --rounds 6 > $OUT/scan2.txt 2>&1; echo "scan rc $?"; tail -20 $OUT/scan2.txt
