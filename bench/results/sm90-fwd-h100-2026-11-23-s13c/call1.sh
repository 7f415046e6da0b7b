#!/bin/bash
# h13-fwd90c, the one device call (H100, timeout 300 s). Carry: .deps, build-h13fwd90c/carry
# (shims.tar.xz: cur = HEAD's bf16 D = 64 / 128 / 256 objects, cand = the same with the
# suspending-waits D = 128 TU; bench/sm90_timeline_shim.cu without the timeline).
# 1. the sm90 test build of the working tree (the candidate), bucket 128, background;
# 2. power13.py sustained, free clocks: cur / cand / cuDNN, 2 s each, 2 rounds (order reversed),
#    D = 128 16k / 8k / 4k and D = 256 16k non-causal (cand = cur at 256: left out there);
# 3. the same at D = 128 16k / 8k with the SM clock locked (nvidia-smi -lgc 1500,1500; reset
#    after); if the lock is refused, ncu at base clocks instead (one launch each);
# 4. bench/sm90_vs_cudnn.py in turns (cur / cand / cuDNN, 20 rounds, twice, reversed;
#    outputs compared bit for bit) at short launches where a later wake-up could show;
# 5. the sm90 tests of the candidate; memcheck + racecheck on multi-round D = 128 cases.
source scripts/gpu-env.sh; set -o pipefail
H=bench/results/sm90-fwd-h100-2026-11-23-s13c
B=build-h13fwd90c
L=$OUT/steps.log
W=/tmp/w13c; mkdir -p $W && tar -xJf $B/carry/shims.tar.xz -C $W
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit,temperature.gpu,power.draw --format=csv > $OUT/gpu.txt 2>&1
source bench/sm90_call_steps.sh
SM90_BUILD_JOBS=14 sm90_build_tests $B 128 "-DFATTN_CUDA_DTYPES=fp16;bf16"
P=$H/power13.py
LIBS="--lib cur=$W/cur.so --lib cand=$W/cand.so"
timeout 100 python3 $P $LIBS --points "128,16384,0;128,8192,0;128,4096,0;256,16384,0" --skip cand@256 \
  --seconds 2 --rounds 2 --tag free --json $OUT/free.json > $OUT/free.log 2>&1
echo "free rc $? at ${SECONDS} s" >> $L
nvidia-smi -lgc 1500,1500 > $OUT/lgc.log 2>&1; lgc=$?
echo "lgc rc $lgc at ${SECONDS} s: $(tr '\n' ' ' < $OUT/lgc.log)" >> $L
if [ $lgc = 0 ]; then
  timeout 45 python3 $P $LIBS --points "128,16384,0;128,8192,0" --seconds 1.5 --rounds 2 --tag lock1500 \
    --json $OUT/lock.json > $OUT/lock.log 2>&1
  echo "lock rc $? at ${SECONDS} s" >> $L
  nvidia-smi -rgc >> $OUT/lgc.log 2>&1; echo "rgc rc $? at ${SECONDS} s" >> $L
else
  timeout 45 ncu --clock-control base --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second \
    -k regex:'forward_kernel|fprop|flash|sdpa' --csv python3 $P $LIBS --once \
    --points "128,16384,0;128,8192,0" > $OUT/ncu.csv 2> $OUT/ncu.err
  echo "ncu rc $? at ${SECONDS} s" >> $L
fi
S=bench/sm90_vs_cudnn.py
PT="128,512,0;128,1024,0;128,4096,0;128,16384,0;128,1024,1;128,4096,1;128,16384,1"
timeout 45 python3 $S --lib cur=$W/cur.so --lib cand=$W/cand.so --bench --no-flash --points "$PT" \
  --rounds 20 --same-outputs --json $OUT/ab1.json > $OUT/ab1.log 2>&1
echo "ab1 rc $? at ${SECONDS} s" >> $L
timeout 45 python3 $S --lib cand=$W/cand.so --lib cur=$W/cur.so --bench --no-flash --points "$PT" \
  --rounds 20 --same-outputs --json $OUT/ab2.json > $OUT/ab2.log 2>&1
echo "ab2 rc $? at ${SECONDS} s" >> $L
sm90_run_tests $B $L 55 25 \
  '*keys_ascending_d128_causal_rounds*:*many_tiles_d128_padded_rows*:*idle_consumer_d128_causal*'
cd $OUT && cat free.log lock.log 2>/dev/null | grep -v Warning > summary.txt; grep -hE "^D=" ab1.log ab2.log >> summary.txt
tar -czf /tmp/all13c.tgz --exclude=steps.log --exclude=summary.txt . && find . -mindepth 1 ! -name steps.log ! -name summary.txt -delete && mv /tmp/all13c.tgz .
ls; cat steps.log summary.txt
