#!/bin/bash
# s25 call 2: the deterministic mode's dQ chain split over 2 (and 4) accumulators, against the
# one chain of main, in turns beside FA2's backward; then the library's sm80 backward tests and
# both sanitizers on the branch's tree. Trees come as s25trees/{old,new}.tgz (git archive of main
# and of branch s25-detchains); new4 is new with kDeterministicDqChainBits = 2.
source scripts/gpu-env.sh 2>/dev/null
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
for v in old new new4; do
  mkdir -p /tmp/t-$v && tar xzf s25trees/${v/new4/new}.tgz -C /tmp/t-$v
done
sed -i 's/kDeterministicDqChainBits = 1;/kDeterministicDqChainBits = 2;/' /tmp/t-new4/src/cuda/sm80/backward.cuh
grep -c "kDeterministicDqChainBits = 2;" /tmp/t-new4/src/cuda/sm80/backward.cuh
for v in old new new4; do
  (cd /tmp/t-$v && bash bench/sm80_old_new_build.sh /tmp/b-$v . "64 128 256" 5 bwd > $OUT/build-$v.log 2>&1) &
done
wait
for v in old new new4; do echo "$v: $(tail -2 $OUT/build-$v.log | head -1)"; done
echo "== shims built at $SECONDS s"
# the branch's library tests, built in the background while the kernels are timed
( cd /tmp/t-new && cmake -S . -B /tmp/lib -G Ninja -DCMAKE_BUILD_TYPE=Release -DFATTN_CUDA=ON \
    -DFATTN_CUDA_FAMILIES=sm80 "-DFATTN_CUDA_HEAD_DIMS=64;128;256" "-DFATTN_CUDA_DTYPES=fp16;bf16" \
    -DFATTN_CUDA_ARCHS=90a -DFATTN_BUILD_TOOLS=OFF > $OUT/lib-configure.log 2>&1 &&
  nice -n 19 ninja -C /tmp/lib -j 14 fattn_cuda_tests > $OUT/lib-build.log 2>&1; echo $? > $OUT/lib.rc ) &
LIB=$!
P='128,2048,0;128,4096,0;128,16384,0;128,4096,1;256,2048,0;256,4096,1;64,4096,0;64,1024,1'
timeout 150 python3 bench/sm80_bwd_turns.py --old /tmp/b-old/new/new.so --new /tmp/b-new/new/new.so \
  --runs 2 --deterministic --points "$P" > $OUT/turns_det2.txt 2>&1
tail -14 $OUT/turns_det2.txt
timeout 110 python3 bench/sm80_bwd_turns.py --old /tmp/b-old/new/new.so --new /tmp/b-new4/new/new.so \
  --runs 2 --deterministic --points "$P" > $OUT/turns_det4.txt 2>&1
tail -14 $OUT/turns_det4.txt
timeout 70 python3 bench/sm80_bwd_turns.py --old /tmp/b-old/new/new.so --new /tmp/b-new/new/new.so \
  --runs 1 --points "$P" > $OUT/turns_default.txt 2>&1
tail -12 $OUT/turns_default.txt
echo "== timing done at $SECONDS s"
wait $LIB; echo "lib build rc $(cat $OUT/lib.rc) at $SECONDS s"
T=/tmp/lib/tests/cuda/fattn_cuda_tests
timeout 100 $T --gtest_filter='*Sm80Backward*:*cuda_sm80*' > $OUT/gtest.log 2>&1
echo "gtest rc $?: $(grep -cE '^\[       OK' $OUT/gtest.log) ok"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/gtest.log | head
for tool in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 1 $T --gtest_filter='*Sm80Backward*Deterministic*gqa*' > $OUT/gtest-$tool.log 2>&1
  echo "$tool rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/gtest-$tool.log | tail -1) $(grep -cE '^\[       OK' $OUT/gtest-$tool.log) ok"
done
(cd $OUT && tar czf logs.tgz *.log && rm -f *.log lib.rc)
