#!/bin/bash
# h13-fwd80b call 2 (H100): the v14b candidate (the 13-step D = 193..208 tile with
# WholePrologueCopies; every other kernel as HEAD) against HEAD in turns, with NEW's bf16 variants:
# 60 = HEAD's 256 tiles spelled out, 62 = call 1's 256 table (two-chunk whole-chunk copies),
# 66 = the 256 table with one-chunk whole-chunk copies, 65 = call 1's 13-step tile, 63 = 65 with
# WholePrologueCopies; ncu of HEAD's 256 table and variant 62 at N = 512; meanwhile the library's
# sm80 GPU tests build from the candidate tree (TREE), then the tests, memcheck and racecheck.
#   source scripts/gpu-env.sh; OLD=.. NEW=.. TREE=.. OUT=.. bash .../call2.sh
set -o pipefail
export PYTHONUNBUFFERED=1
H=$PWD/bench/results/sm80-fwd-h100-2026-11-23-s13b
S13=$PWD/bench/results/sm80-fwd-h100-2026-11-23-s13
src=/tmp/v14tree; build=/tmp/v14build; tests=$build/tests/cuda/fattn_cuda_tests
mkdir -p $src && tar xzf ${TREE:?tree} -C $src
( cmake -S $src -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DFATTN_CUDA=ON \
    -DFATTN_CUDA_FAMILIES=sm80 "-DFATTN_CUDA_HEAD_DIMS=256" "-DFATTN_CUDA_DTYPES=fp16;bf16" \
    -DFATTN_CUDA_ARCHS=90a -DFATTN_CUDA_RESOURCE_USAGE=ON -DFATTN_BUILD_TOOLS=OFF \
    > $OUT/lib-configure.log 2>&1 &&
  timeout 200 ninja -C $build -j 16 fattn_cuda_tests > $OUT/lib-build.log 2>&1
  echo $? > $OUT/lib-build.rc ) &
bpid=$!
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
echo "== $(date +%T) turns"
b16="16,16,bf16"; f16="16,16,fp16"
timeout 50 python3 $H/turns14.py --old ${OLD:?old} --new ${NEW:?new} --variants 60,62,66,63 \
  --json $OUT/turns.json --points "256,512,0;256,2048,0;200,2048,0,$b16;200,2048,1,$b16;200,512,0;\
200,8192,0;200,2048,0,$f16;200,2048,1,$f16;256,2048,0,$f16" 2>&1 | grep -v Warning
echo "== $(date +%T) ncu"
timeout 25 ncu --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
  --section LaunchStats --section Occupancy --metrics smsp__inst_executed.sum,dram__bytes_read.sum \
  -k regex:forward_kernel --launch-skip 3 -c 2 -o $OUT/ncu256 \
  python3 $H/turns14.py --old $OLD --new $NEW --variants 62 --profile old,v62 --points 256,512,0 \
  > $OUT/ncu256.log 2>&1
echo "ncu rc $?"
ncu --import $OUT/ncu256.ncu-rep --page raw --csv 2>/dev/null | python3 $S13/ncu13_summary.py
echo "== $(date +%T) waiting for the library build"
wait $bpid
echo "build rc $(cat $OUT/lib-build.rc); kernels with spills:" \
  "$(grep -cE '[1-9][0-9]* bytes spill stores' $OUT/lib-build.log)"
timeout 30 $tests --gtest_filter='*cuda_sm80*:*Sm80Forward*:*Sm80Misaligned*' > $OUT/gtest.log 2>&1
echo "== $(date +%T) gtest rc $?: $(grep -cE '^\[       OK' $OUT/gtest.log) ok;" \
  "$(grep -E '^\[  (PASSED|FAILED)' $OUT/gtest.log | tr '\n' ' ')"
for tool in memcheck racecheck; do
  timeout 20 compute-sanitizer --tool $tool --error-exitcode 1 $tests --gtest_filter='FullWidth/*' \
    > $OUT/gtest-$tool.log 2>&1
  echo "== $(date +%T) $tool rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/gtest-$tool.log | tail -1)" \
    "$(grep -cE '^\[       OK' $OUT/gtest-$tool.log) ok"
done
cd $OUT && tar czf logs.tgz lib-*.log gtest*.log ncu256.log && rm -f lib-*.log gtest*.log lib-build.rc ncu256.log
echo "== $(date +%T) done"
