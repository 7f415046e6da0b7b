#!/bin/bash
# h12-fwd90e (v25), the one call: the tail group (TileShape::tail_group_last_rounds, masked
# D = 128 / 256 one-pair-group launches) against HEAD 0d3faed (cur) in turns.
# Carry: .deps, build-h12fwd90e/trees (cur = git archive HEAD, tail = cur + candidate-tail.patch
# = the working tree's src).
# 1. the sm90 test build of the working tree, D = 128 / 256 buckets (background, -j8);
# 2. shims of cur and tail (bench/sm90_candidates_build.sh's flags, -Xptxas -v), -j8;
# 3. bench/sm90_candidates_call.sh: cur / tail / cuDNN in turns, twice (run 2 reversed);
#    ncu at D = 128 / 256 N = 512 causal;
# 4. the sm90 GPU tests, memcheck and racecheck of tail_group_d128_causal_rounds;
# 5. SASS of cur against tail per kernel (bench/sass_compare.py), spills from ptxas.
source scripts/gpu-env.sh; set -o pipefail
R=bench/results/sm90-fwd-h100-2026-11-23-s12e
B=build-h12fwd90e
L=$OUT/steps.log
(cmake -S . -B $B/tests -G Ninja -DFATTN_CUDA=ON -DFATTN_CUDA_FAMILIES=sm90 -DFATTN_CUDA_ARCHS=90a \
   -DFATTN_CUDA_HEAD_DIMS="128;256" -DFATTN_BUILD_TOOLS=OFF > $OUT/build.log 2>&1 && \
 ninja -C $B/tests -j8 fattn_cuda_tests >> $OUT/build.log 2>&1) &
TB=$!
source bench/shim_build_common.sh
SP=()
for v in cur tail; do
  root=$PWD/$B/trees/$v
  flags=(-std=c++20 -O3 -lineinfo "-I$root/src" "-I$root/include" -Ibench --expt-relaxed-constexpr
         -Xcompiler -fPIC "-gencode=arch=compute_90a,code=sm_90a" -Xptxas -v)
  (build_shim "$B/shims/$v" 4 libsm90timeline.so "${flags[*]}" \
    "$root/src/cuda/instantiations/sm90_fwd_d64_bf16.cu" \
    "$root/src/cuda/instantiations/sm90_fwd_d128_bf16.cu" \
    "$root/src/cuda/instantiations/sm90_fwd_d256_bf16.cu" \
    "$root/src/cuda/sm90/tensor_map.cu" "$root/src/api/types.cpp" bench/sm90_timeline_shim.cu \
    > $OUT/shim-$v.log 2>&1) &
  SP+=($!)
done
wait "${SP[@]}"; echo "shims built at ${SECONDS} s: $(ls $B/shims/*/libsm90timeline.so | tr '\n' ' ')" >> $L
mkdir -p $B/stage $B/carry
for v in cur tail; do cp $B/shims/$v/libsm90timeline.so $B/stage/$v.so; done
tar -cJf $B/carry/shims.tar.xz -C $B/stage cur.so tail.so
CAND_TAG=fwd90e CAND_BUILD=$B CAND_NAMES="tail" CAND_RUN_S=35 \
  CAND_POINTS="128,512,1;128,1024,1;256,512,1;256,1024,1;128,2048,1;256,2048,1;128,512,0;256,512,0" \
  CAND_NCU_POINTS="128,512,1;256,512,1" \
  CAND_TITLE="h12-fwd90e: the tail group (cur = HEAD 0d3faed, tail = candidate-tail.patch)" \
  bash bench/sm90_candidates_call.sh > /dev/null 2>&1
echo "candidates rc $? at ${SECONDS} s" >> $L
wait $TB; echo "tests build rc $? at ${SECONDS} s" >> $L
T=$B/tests/tests/cuda/fattn_cuda_tests
timeout 75 $T --gtest_filter='*sm90*:*Sm90*' > $OUT/tests.log 2>&1
echo "tests rc $? at ${SECONDS} s: $(grep -E '^\[  PASSED|^\[  FAILED|tests ran' $OUT/tests.log | head -4 | tr '\n' ' ')" >> $L
F='*tail_group_d128_causal_rounds'
for tool in memcheck racecheck; do
  timeout 40 compute-sanitizer --tool $tool --error-exitcode 1 $T --gtest_filter="$F" > /tmp/$tool.log 2>&1
  echo "$tool rc $? at ${SECONDS} s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' /tmp/$tool.log | tr '\n' ' ')" >> $L
  cat /tmp/$tool.log >> $OUT/sanitizers.log
done
for d in d64 d128 d256; do
  python3 bench/sass_compare.py $B/shims/cur/sm90_fwd_${d}_bf16.o $B/shims/tail/sm90_fwd_${d}_bf16.o \
    >> $OUT/sass.txt 2>&1
done
grep -h "spill" $B/shims/tail/ptxas.log | grep -v " 0 bytes spill stores, 0 bytes spill loads" | sort | uniq -c > $OUT/spills-tail.txt
echo "nonzero spill lines (tail): $(wc -l < $OUT/spills-tail.txt) at ${SECONDS} s" >> $L
cp $B/shims/cur/ptxas.log $OUT/ptxas-cur.log; cp $B/shims/tail/ptxas.log $OUT/ptxas-tail.log
cd $OUT && tar -czf logs.tgz *.log *.txt && cat steps.log sass.txt && mv steps.log steps.keep && \
  rm -f *.log *.txt && mv steps.keep steps.txt && ls
