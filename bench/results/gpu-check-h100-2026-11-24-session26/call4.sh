#!/bin/bash
# Twenty-sixth session, call 4: v37 as it lands (threshold 0.95; the 256 bucket's whole-box causal
# launches on balanced small groups too): old (main before v37: the group-scan shim at group 0)
# against new (this tree's plain shim) beside cuDNN, outputs bit for bit; then the sm90 GPU tests
# and both sanitizers.
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
source scripts/gpu-env.sh 2>/dev/null
xz -dc build-gscan/carry/g.so.xz > /tmp/g.so
xz -dc build-v37b/carry/new.so.xz > /tmp/new.so
cd bench
for s in "1,14:144,16384,1" "1,8:240,16384,1" "1,15:136,16384,1" "3,16:144,16384,1" \
         "3,16:144,4096,1" "16,16:136,2048,1" "8,15:136,2048,1" \
         ":256,2048,1;256,4096,1;256,8192,1;256,16384,1;256,4096,0" "2,16:256,4096,1" \
         "8,8:256,2048,1" "1,16:256,8192,1"; do
  shape=${s%%:*}
  python3 sm90_vs_cudnn.py --lib old=/tmp/g.so --lib new=/tmp/new.so --bench --same-outputs \
    --no-flash --rounds 8 ${shape:+--shape $shape} --points "${s#*:}" 2>&1 \
    | grep "^D=\|same outputs\|failed" | sed "s/^/B,H=${shape:-16k} /" | tee -a $OUT/ab.txt
done
cd ..
OUT=$OUT/gc timeout 450 scripts/gpu-check --families sm90 --dtypes "fp16;bf16" --no-bench --bundle 2>&1 | tail -9
