#!/bin/bash
# h13-fwd80 call 2 (H100): the v13 table (WholePrologueCopies at 64/128/256; the 64 tile's O through
# shared memory with EpilogueWarpRowAfresh) in turns beside the table before it (shim variant 50),
# the 64 table's two parts (51: whole prologue copies only, 52: the epilogue only) and PyTorch's
# flash; meanwhile the library's sm80 GPU tests build from the v13 tree (TREE: a tarball of the
# worktree's tracked files); then the tests, memcheck and racecheck on cases that run the change.
#   source scripts/gpu-env.sh; LIB=<shim> TREE=<tgz> OUT=<dir> bash .../call2.sh
set -o pipefail
export PYTHONUNBUFFERED=1
H=$PWD/bench/results/sm80-fwd-h100-2026-11-23-s13
L=${LIB:?shim}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
src=/tmp/v13tree; build=/tmp/v13build; tests=$build/tests/cuda/fattn_cuda_tests
mkdir -p $src && tar xzf ${TREE:?tree} -C $src
( cmake -S $src -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DFATTN_CUDA=ON \
    -DFATTN_CUDA_FAMILIES=sm80 "-DFATTN_CUDA_HEAD_DIMS=64;128;256" "-DFATTN_CUDA_DTYPES=fp16;bf16" \
    -DFATTN_CUDA_ARCHS=90a -DFATTN_CUDA_RESOURCE_USAGE=ON -DFATTN_BUILD_TOOLS=OFF \
    > $OUT/lib-configure.log 2>&1 &&
  timeout 200 nice -n 19 ninja -C $build -j 14 fattn_cuda_tests > $OUT/lib-build.log 2>&1
  echo $? > $OUT/lib-build.rc ) &
bpid=$!
echo "== $(date +%T) turns"
nc() { local o=""; for N in 512 1024 2048 4096 8192 16384; do o+="$1,$N,0;"; done; echo "${o%;}"; }
timeout 120 python3 $H/turns13.py --lib $L --variants 50,51,52 --json $OUT/turns.json \
  --points "$(nc 256);$(nc 64);$(nc 128);256,512,1;128,4096,1;64,1024,1" 2>&1 | grep -v Warning
echo "== $(date +%T) waiting for the library build"
wait $bpid
echo "build rc $(cat $OUT/lib-build.rc); kernels with spills:" \
  "$(grep -cE '[1-9][0-9]* bytes spill stores' $OUT/lib-build.log)"; tail -3 $OUT/lib-build.log
timeout 60 $tests --gtest_filter='*cuda_sm80*:*Sm80Forward*:*Sm80Misaligned*' > $OUT/gtest.log 2>&1
echo "== $(date +%T) gtest rc $?: $(grep -cE '^\[       OK' $OUT/gtest.log) ok"
grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" $OUT/gtest.log | head -12
small='FullWidth/*:HeadGroups/*d128_window_8_heads*:HeadGroups/*d128_causal_gqa*'
for tool in memcheck racecheck; do
  timeout 50 compute-sanitizer --tool $tool --error-exitcode 1 $tests --gtest_filter="$small" \
    > $OUT/gtest-$tool.log 2>&1
  echo "== $(date +%T) $tool rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/gtest-$tool.log | tail -1)" \
    "$(grep -cE '^\[       OK' $OUT/gtest-$tool.log) ok"
done
cd $OUT && tar czf logs.tgz lib-*.log gtest*.log && rm -f lib-*.log gtest*.log lib-build.rc
echo "== $(date +%T) done"
