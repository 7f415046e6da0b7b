#!/bin/bash
# h13-fwd80b call 1 (H100): the v14 candidate (WholeChunkKvCopies at the 256 table's tile and the
# 13-step D = 193..208 tile; PrologueChunksPerLane at the 256 table) against the v13 table in
# turns: two shims (OLD: HEAD, NEW: the candidate with bf16 variants 60 = v13 spelled out,
# 61 = the 256 loop copies alone, 63 = the 13-step tile + WholePrologueCopies), PyTorch's flash
# in the same rows; the reference check of both; meanwhile the library's sm80 GPU tests build
# from the candidate tree (TREE), then the tests, memcheck and racecheck.
#   source scripts/gpu-env.sh; OLD=.. NEW=.. TREE=.. OUT=.. bash .../call1.sh
set -o pipefail
export PYTHONUNBUFFERED=1
H=$PWD/bench/results/sm80-fwd-h100-2026-11-23-s13b
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
src=/tmp/v14tree; build=/tmp/v14build; tests=$build/tests/cuda/fattn_cuda_tests
mkdir -p $src && tar xzf ${TREE:?tree} -C $src
( cmake -S $src -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DFATTN_CUDA=ON \
    -DFATTN_CUDA_FAMILIES=sm80 "-DFATTN_CUDA_HEAD_DIMS=64;128;256" "-DFATTN_CUDA_DTYPES=fp16;bf16" \
    -DFATTN_CUDA_ARCHS=90a -DFATTN_CUDA_RESOURCE_USAGE=ON -DFATTN_BUILD_TOOLS=OFF \
    > $OUT/lib-configure.log 2>&1 &&
  timeout 200 nice -n 19 ninja -C $build -j 14 fattn_cuda_tests > $OUT/lib-build.log 2>&1
  echo $? > $OUT/lib-build.rc ) &
bpid=$!
echo "== $(date +%T) check"
timeout 60 python3 $H/check14.py --libs ${OLD:?old},${NEW:?new} 2>&1 | grep -v Warning | tail -8
echo "== $(date +%T) turns"
nc() { local o=""; for N in 512 1024 2048 4096 8192 16384; do o+="256,$N,0;"; done; echo "${o%;}"; }
odd="200,2048,0,16,16,fp16;192,2048,0,16,16,fp16;136,2048,0,16,16,fp16;256,2048,0,16,16,fp16"
timeout 150 python3 $H/turns14.py --old $OLD --new $NEW --variants 60,61,63 --json $OUT/turns.json \
  --points "$(nc);256,512,1;256,4096,1;200,2048,0,16,16,bf16;256,2048,0,16,16,bf16;$odd;200,2048,1,16,16,fp16" \
  2>&1 | grep -v Warning
echo "== $(date +%T) waiting for the library build"
wait $bpid
echo "build rc $(cat $OUT/lib-build.rc); kernels with spills:" \
  "$(grep -cE '[1-9][0-9]* bytes spill stores' $OUT/lib-build.log)"; tail -2 $OUT/lib-build.log
timeout 60 $tests --gtest_filter='*cuda_sm80*:*Sm80Forward*:*Sm80Misaligned*' > $OUT/gtest.log 2>&1
echo "== $(date +%T) gtest rc $?: $(grep -cE '^\[       OK' $OUT/gtest.log) ok"
grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" $OUT/gtest.log | head -12
small='FullWidth/*:HeadGroups/*d128_window_8_heads*'
for tool in memcheck racecheck; do
  timeout 50 compute-sanitizer --tool $tool --error-exitcode 1 $tests --gtest_filter="$small" \
    > $OUT/gtest-$tool.log 2>&1
  echo "== $(date +%T) $tool rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/gtest-$tool.log | tail -1)" \
    "$(grep -cE '^\[       OK' $OUT/gtest-$tool.log) ok"
done
cd $OUT && tar czf logs.tgz lib-*.log gtest*.log && rm -f lib-*.log gtest*.log lib-build.rc
echo "== $(date +%T) done"
