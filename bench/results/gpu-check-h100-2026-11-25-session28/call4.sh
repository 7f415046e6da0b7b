#!/bin/bash
# Twenty-eighth session, call 4: FusedDqConversion (helper s28-dqfuse,
# bench/results/sm80-s28-dqfuse-prep/; merged on main as c23cecd): the last key-tile CTA of each
# query tile converts its dQ, and the postprocess launch is skipped (default mode, full-width
# kernels of BackwardConfig<64> and the Large 128 / 256 tables, launches of at most 16 query
# tiles per head group). Shims old = main ea4fa5c, new = the branch (buckets 64 / 128 / 256), in
# turns beside FA2; the timed call is the whole backward (old with its postprocess). The tree's
# sm80 library tests (every bucket: main with v57 and this) built in the background meanwhile,
# then the sm80 backward / cuda_sm80 / shared-memory-limit tests, then memcheck on the new cases
# and racecheck / synccheck on five of them.
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
mkdir -p $OUT/gc
( OUT=$OUT/gc nice -n 19 scripts/gpu-check --families sm80 --dtypes "fp16;bf16" \
    --no-bench --no-tests --no-sanitizers --jobs 14 > $OUT/gc-build.txt 2>&1 ) &
BUILD=$!
sm80_unpack_old_new build-s28dqfuse/carry
P='256,512,0;256,1024,0;256,512,1;256,4096,0;128,512,1;128,512,0;128,1024,0;128,1024,1;64,512,0;64,1024,1;64,512,1;64,16384,0'
timeout 220 python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 2 --points "$P" \
  > $OUT/fused.txt 2>&1; echo "fused rc $?"; grep "^D=" $OUT/fused.txt
wait $BUILD; tail -3 $OUT/gc-build.txt
echo "== $(date +%T) (at $SECONDS s) tests"
OUT=$OUT/gc timeout 330 scripts/gpu-check --families sm80 --dtypes "fp16;bf16" --no-bench \
  --no-sanitizers --filter '*Sm80Backward*:*cuda_sm80*:*CudaSharedMemoryLimit*' 2>&1 | tail -3
T=build-gpu-check/tests/cuda/fattn_cuda_tests
F='FusedDqConversion/*'
$T --gtest_list_tests --gtest_filter="$F" | grep -c "^  " | sed 's/^/fused cases: /'
timeout $((585 - SECONDS)) compute-sanitizer --tool memcheck --error-exitcode 1 $T --gtest_filter="$F" > $OUT/fused-memcheck.log 2>&1
echo "== fused memcheck rc $?: $(grep -E 'ERROR SUMMARY' $OUT/fused-memcheck.log | tail -1) $(grep -cE '^\[       OK' $OUT/fused-memcheck.log) ok"
F2='*/fused_partial_tile_d128_odd:*/fused_causal_fewer_queries_gqa_d128:*/fused_17_queries_d256:*/fused_causal_gqa_d64:*/fused_step_class6_d96'
for tool in racecheck synccheck; do
  timeout $((590 - SECONDS)) compute-sanitizer --tool $tool --error-exitcode 1 $T --gtest_filter="$F2" > $OUT/fused-$tool.log 2>&1
  echo "== fused $tool rc $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $OUT/fused-$tool.log | tail -1) $(grep -cE '^\[       OK' $OUT/fused-$tool.log) ok"
done
