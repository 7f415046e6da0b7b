#!/bin/bash
# h16-bwd90 call 2: GradIssue::around_dq at D = 128 — library build with it as the D = 128 default
# (gtests, memcheck), the A/B in turns in both orders (A: main row first; B: candidate first), ncu
# causal N = 4k (main, candidate, cuDNN), racecheck, source counters of the candidate.
set -o pipefail
source scripts/gpu-env.sh
export PYTHONUNBUFFERED=1
C=build-h16-bwd90/carry2; S=bench/sm90_bwd_variants.py; BUILD=/tmp/bld
T0=$SECONDS
L=/tmp/logs; mkdir -p $L
el() { echo "[t=$((SECONDS - T0)) s] $*"; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
cp $C/flip_src/cuda/sm90/backward_kernel.cuh $C/flip_src/cuda/sm90/backward_tile_config.hpp src/cuda/sm90/
git diff --stat | tail -2
( cmake -S . -B $BUILD -G Ninja -DCMAKE_BUILD_TYPE=Release -DFATTN_CUDA=ON -DFATTN_CUDA_FAMILIES="sm80;sm90" \
  -DFATTN_CUDA_HEAD_DIMS="64;128" -DFATTN_CUDA_DTYPES="fp16;bf16" -DFATTN_CUDA_ARCHS=90a > $L/cmake.log 2>&1 &&
  ninja -C $BUILD -j16 fattn_cuda_tests > $L/build.log 2>&1 ) &
BPID=$!
# While it builds: the A/B in both orders (the GPU is idle otherwise).
timeout 60 python3 $S --lib $C/A/libsm90bwdvariants.so --bench --head-dims 128 --rounds 3 --peers cudnn --json $OUT/benchA.json > $L/benchA.log 2>&1; el "benchA rc $?"; grep -v '^|---' $L/benchA.log
timeout 45 python3 $S --lib $C/B/libsm90bwdvariants.so --bench --head-dims 128 --rounds 3 --no-sdpa --json $OUT/benchB.json > $L/benchB.log 2>&1; el "benchB rc $?"; grep -v '^|---' $L/benchB.log
wait $BPID; el "build rc $?"; grep -E "error|spill|C75[0-9][0-9]" $L/build.log | head -5
T=$BUILD/tests/cuda/fattn_cuda_tests
timeout 60 $T --gtest_filter='*Sm90Backward*' > $OUT/gtest.log 2>&1; el "gtest Sm90Backward rc $?: $(grep -cE '^\[       OK' $OUT/gtest.log) ok, $(grep -cE '^\[  FAILED  \]' $OUT/gtest.log) failed"
tail -2 $OUT/gtest.log
SMALL='Sm90/Sm90Backward.*one_key_tile*:Sm90/Sm90Backward.*causal_nq_gt_nk*:Sm90/Sm90Backward.*gqa*'
timeout 40 compute-sanitizer --tool memcheck $T --gtest_filter="$SMALL" > $L/memcheck.log 2>&1; el "memcheck rc $?: $(grep -E 'ERROR SUMMARY' $L/memcheck.log | tail -1) $(grep -cE '^\[       OK' $L/memcheck.log) ok"
SEC="--section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --print-details all --metrics lts__t_sectors_op_red.sum"
timeout 30 ncu $SEC -k 'regex:(^|::)backward_kernel' python3 $S --lib $C/A/libsm90bwdvariants.so --profile 128,4096,1 > $OUT/ncu_ours_causal.log 2>&1; el "ncu ours causal rc $?"
timeout 25 ncu $SEC -k regex:bprop -c 1 python3 $C/sm90_bwd_cudnn_profile.py 128,4096,1 > $OUT/ncu_cudnn_causal.log 2>&1; el "ncu cudnn causal rc $?"
grep -E "^  [a-z_].*\(|Duration|Pipe Tensor Cycles Active|Issue Slots Busy|Warp Cycles Per Issued|Stall (Long|Wait|MIO|Barrier|GMMA)" $OUT/ncu_ours_causal.log $OUT/ncu_cudnn_causal.log | cut -c1-140
[ $((SECONDS - T0)) -lt 175 ] && { timeout 45 compute-sanitizer --tool racecheck python3 $S --lib $C/A/libsm90bwdvariants.so --small --variants 1 > $L/racecheck.log 2>&1; el "racecheck rc $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $L/racecheck.log | tail -1)"; grep check: $L/racecheck.log; }
[ $((SECONDS - T0)) -lt 200 ] && { timeout 25 ncu --section SourceCounters --section WarpStateStats -k 'regex:(^|::)backward_kernel' -c 1 -f -o /tmp/src_v1 python3 $S --lib $C/B/libsm90bwdvariants.so --profile 128,4096,0 --variants 0 > /dev/null 2>&1; el "src v1 rc $?";
  ncu -i /tmp/src_v1.ncu-rep --page source --csv --print-source sass > /tmp/src_v1.csv 2>/dev/null; python3 bench/sm90_ncu_source_summary.py /tmp/src_v1.csv --top 16 > $OUT/src_v1.summary.txt 2>&1; head -40 $OUT/src_v1.summary.txt; }
tar czf $OUT/logs.tgz -C /tmp logs; el done
