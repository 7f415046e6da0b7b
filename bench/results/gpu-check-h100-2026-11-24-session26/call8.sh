#!/bin/bash
# Twenty-sixth session, call 8: racecheck on the burst-chain cases (main with v50 and v52: the
# deterministic chains at 128 and 256), from the library's sm80 test build (buckets 128 / 256);
# while it builds, the deterministic / default backward at the sweep's weakest D = 256 points:
# the same shim (main's 256 bucket) in both modes, each in turns beside FA2.
source scripts/gpu-env.sh 2>/dev/null
source bench/sm80_call_steps.sh
C=build-s26d
sm80_build_tree_tests $C/tree.tgz "128;256" 14 330
xz -dc $C/new.so.xz > /tmp/new.so
P='256,512,1;256,1024,1;256,2048,0;256,8192,1;256,16384,1'
for mode in default deterministic; do
  python3 bench/sm80_bwd_turns.py --old /tmp/new.so --new /tmp/new.so --runs 2 \
    $([ $mode = deterministic ] && echo --deterministic) --points "$P" > $OUT/turns_$mode.txt 2>&1
  echo "$mode rc $?"; grep "^D=" $OUT/turns_$mode.txt
done
echo "== $(date +%T) (at $SECONDS s) waiting for the library build"
wait "$SM80_TESTS_PID"
echo "build rc $(cat $OUT/lib-build.rc); kernels with spills: $(grep -cE '[1-9][0-9]* bytes spill stores' $OUT/lib-build.log)"
timeout $((570 - SECONDS)) compute-sanitizer --tool racecheck --error-exitcode 1 "$SM80_TESTS" \
  --gtest_filter='*Sm80Backward*burst_chain*' > $OUT/gtest-racecheck.log 2>&1
echo "== racecheck rc $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $OUT/gtest-racecheck.log | tail -1) $(grep -cE '^\[       OK' $OUT/gtest-racecheck.log) ok"
grep -E '^\[ RUN|^\[       OK' $OUT/gtest-racecheck.log | tail -12
sm80_pack_logs
