#!/bin/bash
# Twenty-eighth session, call 3: the sm80 backward's DiagonalBandMaskPass (helper s28-bwd128mask,
# bench/results/sm80-s28-bwd128mask-prep/; merged on main as aae4ee2): the masked kernels of
# LargeSharedMemoryBackwardConfig<128> and the 256 deterministic table test a partial tile's
# scores without branches. Shims old = main 4ddfad9, new = a983eb6 (buckets 128 + 256), in turns
# beside FA2: default mode, then deterministic. The tree's sm80 tests (buckets 128 + 256) built
# in the background meanwhile, then run; memcheck / racecheck on the band-pass cases.
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
mkdir -p $OUT/gc
( OUT=$OUT/gc nice -n 19 scripts/gpu-check --families sm80 --head-dims "128;256" --dtypes "fp16;bf16" \
    --no-bench --no-tests --no-sanitizers --jobs 14 > $OUT/gc-build.txt 2>&1 ) &
BUILD=$!
sm80_unpack_old_new build-s28bwd128/carry
P='128,512,1;128,1024,1;128,2048,1;128,4096,1;128,4096,0;80,2048,1,8,16,bf16;128,1024,1,16,16,fp16;256,1024,1;128,512,0'
timeout 200 python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 2 --points "$P" \
  > $OUT/band_default.txt 2>&1; echo "band default rc $?"; grep "^D=" $OUT/band_default.txt
timeout 120 python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 2 --deterministic \
  --points '256,512,1;256,1024,1;256,2048,1;256,2048,0;128,512,1' > $OUT/band_det.txt 2>&1
echo "band det rc $?"; grep "^D=" $OUT/band_det.txt
wait $BUILD; tail -3 $OUT/gc-build.txt
echo "== $(date +%T) (at $SECONDS s) tests"
OUT=$OUT/gc timeout 300 scripts/gpu-check --families sm80 --head-dims "128;256" --dtypes "fp16;bf16" \
  --no-bench --no-sanitizers --filter '*Sm80Backward*:*cuda_sm80*' 2>&1 | tail -4
T=build-gpu-check/tests/cuda/fattn_cuda_tests
F='*Sm80Backward*band_pass*'
$T --gtest_list_tests --gtest_filter="$F" | grep -c "^  " | sed 's/^/band-pass cases: /'
for tool in memcheck racecheck; do
  timeout $((590 - SECONDS)) compute-sanitizer --tool $tool --error-exitcode 1 $T --gtest_filter="$F" > $OUT/band-$tool.log 2>&1
  echo "== band $tool rc $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $OUT/band-$tool.log | tail -1) $(grep -cE '^\[       OK' $OUT/band-$tool.log) ok"
done
