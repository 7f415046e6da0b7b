#!/bin/bash
# Twenty-sixth session, call 3: v37 (partial-box causal launches on the smallest balanced group,
# tile_scheduler.hpp balanced_small_group) checked and timed.
# 1. old (main before v37: the group-scan shim at group 0) against new (this tree's plain shim),
#    bench/sm90_vs_cudnn.py --same-outputs, beside cuDNN, at the shapes call 2 scanned;
# 2. the whole-box causal sweep points at groups 0 (the rule) / 1 / 8 / 16: does the same
#    selection pay there too? (call 1 hinted at D = 256 4k +6 %);
# 3. the library's sm90 GPU tests (the scheduler tests included) and both sanitizers.
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
xz -dc build-gscan/carry/g.so.xz > /tmp/g.so
xz -dc build-v37/carry/new.so.xz > /tmp/new.so
cd bench
for s in "1,14:144,16384,1" "1,8:240,16384,1" "1,12:160,16384,1" "1,15:136,16384,1" \
         "3,16:144,16384,1" "4,16:144,16384,1;240,16384,1" "3,16:144,4096,1" "16,16:136,2048,1"; do
  python3 sm90_vs_cudnn.py --lib old=/tmp/g.so --lib new=/tmp/new.so --bench --same-outputs \
    --no-flash --rounds 8 --shape "${s%%:*}" --points "${s#*:}" 2>&1 | grep "^D=\|same outputs\|failed" \
    | sed "s/^/B,H=${s%%:*} /" | tee -a $OUT/ab.txt
done
P='64,4096,1;64,8192,1;64,16384,1;128,2048,1;128,4096,1;128,8192,1;256,2048,1;256,4096,1;192,4096,1;192,16384,1'
python3 sm90_group_scan.py --lib /tmp/g.so --points "$P" --groups 0,1,8,16 --runs 3 --rounds 8 \
  > $OUT/scan3.txt 2>&1; echo "scan rc $?"; tail -13 $OUT/scan3.txt
cd ..
OUT=$OUT/gc scripts/gpu-check --families sm90 --dtypes "fp16;bf16" --no-bench --bundle 2>&1 | tail -15
