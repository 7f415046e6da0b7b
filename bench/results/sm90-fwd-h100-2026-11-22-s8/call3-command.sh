#!/bin/bash
# The eighth session's third device call (docs/perf-notes.md "v14"): four sm90 forward shims
# (bench/sm90_build.sh into build-h8/<variant>, xz-packed into build-h8c/<variant>, carried)
# checked and timed in turns beside cuDNN, twice in opposite orders, and between the two runs
# the library's sm90 forward GPU tests and sanitizer cases (scripts/gpu-check) on the working
# tree's table. Tables and the check's summary on stdout; logs and JSON in $OUT (raw.tgz).
# Ran as bench/sm90_v14_device_run.sh (moved here afterwards; it names the shims' folders):
#   bash bench/sm90_v14_device_run.sh      (on the GPU machine, carry .deps and build-h8c)
set -o pipefail
find build-h8c -name '*.xz' | xargs unxz
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
S=bench/sm90_vs_cudnn.py; B=build-h8c
timeout 60 python3 $S --lib pst=$B/pst/libsm90shim.so --lib hpgsim=$B/hpgsim/libsm90shim.so --check > $OUT/check.log 2>&1
echo "check rc $? $(grep -E '^check:' $OUT/check.log | paste -sd' ')"; grep FAIL $OUT/check.log | head -5
mkdir -p $OUT/raw
run_bench() {
  timeout 110 python3 $S $2 --bench --dims 128,64,256 --seqlens 1024,4096,16384 --no-flash --rounds 10 --json $OUT/raw/$1.json > $OUT/$1.log 2>&1
  echo "$1 rc $?"; grep -E "^D=" $OUT/$1.log | sed -E 's/flash +nan +//'
}
run_bench bench1 "--lib pst=$B/pst/libsm90shim.so --lib hpgsim=$B/hpgsim/libsm90shim.so --lib hpg1=$B/hpg1/libsm90shim.so --lib cur=$B/cur/libsm90shim.so"
source scripts/gpu-env.sh
OUT=$OUT/raw/gc timeout 200 scripts/gpu-check --no-bench --families sm90 --dtypes "fp16;bf16" --filter 'Sm90Forward*:Sm90Scheduler*:Sm90Selector*:Sm90NegativeScale*:*Sm90LargeScale*:*Sm90Unaligned*:*cuda_sm90*' > $OUT/gpu-check.out 2>&1
echo "gpu-check rc $?"; grep -E "^(check|build|gpu-tests|memcheck|racecheck)|gpu-check:" $OUT/gpu-check.out | tail -14
run_bench bench2 "--lib cur=$B/cur/libsm90shim.so --lib hpg1=$B/hpg1/libsm90shim.so --lib hpgsim=$B/hpgsim/libsm90shim.so --lib pst=$B/pst/libsm90shim.so"
rm -f $OUT/raw/gc/*.ncu-rep; tar czf $OUT/raw.tgz -C $OUT raw && rm -rf $OUT/raw
