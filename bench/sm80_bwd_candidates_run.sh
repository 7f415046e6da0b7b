#!/bin/bash
# One device call for sm80 backward candidates (tenth session, h10-bwd80; bench/results/
# sm80-bwd-h100-2026-11-23-s10): each shim variant timed in turns beside the table and FA2's
# backward (bench/sm80_bwd_timeline.py --variant: the variant plain and instrumented, the table
# from the same plain shim, FA2; bf16, B·N = 16384, H·D = 2048), ncu of one variant beside FA2's
# kernel (source page, by opcode), and the library's sm80 GPU tests of test libraries built with
# candidate tables (memcheck / racecheck on two small cases of the first).
# Expects (carried) <dir>/timeline and <dir>/plain (bench/sm80_bwd_timeline_build.sh) and
# <dir>/lib<name>/ holding fattn_cuda_tests and the libfattn it links.
# Usage: CAND_DIR=<dir> [CAND_VARIANTS="191 192 193"] [CAND_POINTS="256,4096,0;..."]
#        [CAND_NCU_VARIANT=193] [CAND_TEST_LIBS="lib193 lib191"] [CAND_TEST_FILTER=...]
#        [CAND_SANITIZE_CASES="<gtest filter> ..."] [CAND_NCU_S=0 (no ncu step)]
#        [CAND_DET_VARIANT=202 CAND_DET_POINTS="256,16384,1"] bench/sm80_bwd_candidates_run.sh
# CAND_DET_VARIANT (h10-bwd80b): bench/sm80_bwd_det_ratio.py --variant, the table and the
# candidate in both modes in the same turns.
# Everything lands in one tar ($OUT/results.tgz; $OUT/results-<CAND_TAG>.tgz with CAND_TAG, so
# that two runs of this script in one call keep both) plus $OUT/summary.txt (at most 8 files come
# back from a call); each step appends to the summary as it ends. An empty CAND_TEST_LIBS or
# CAND_SANITIZE_CASES skips that step.
set -o pipefail
source scripts/gpu-env.sh
export PYTHONUNBUFFERED=1
DIR=${CAND_DIR:?CAND_DIR: the carried folder}
VARIANTS=${CAND_VARIANTS:-191 192 193}
POINTS=${CAND_POINTS:-256,4096,0;256,4096,1;256,16384,0;256,16384,1}
NCU_VARIANT=${CAND_NCU_VARIANT:-193}
TEST_LIBS=${CAND_TEST_LIBS-lib193 lib191}
TEST_FILTER=${CAND_TEST_FILTER:-*cuda_sm80*_D256*:*Sm80Backward*d256*}
SANITIZE_CASES=${CAND_SANITIZE_CASES-*Sm80Backward*negative_scale_causal_d256* *Sm80Backward*strided_window_d256*}
TIMELINE=$DIR/timeline/libsm80bwdtimeline.so PLAIN=$DIR/plain/libsm80bwdtimeline.so
KERNELS='regex:(^|::)backward_kernel|flash_bwd_dq_dk_dv'
R=$(mktemp -d)/results
mkdir -p $R
SUMMARY=$OUT/summary.txt
pack() { tar -C $(dirname $R) -czf $OUT/results${CAND_TAG:+-$CAND_TAG}.tgz --exclude='*.npz' \
  --exclude='trace-*' results; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv \
  | tee -a $SUMMARY

for v in $VARIANTS; do
  timeout ${CAND_TIMELINE_S:-70} python3 bench/sm80_bwd_timeline.py --timeline $TIMELINE \
    --plain $PLAIN --out $R/v$v --reps 6 --variant $v --points "$POINTS" > $R/timeline-v$v.log 2>&1
  echo "variant $v rc $?" | tee -a $SUMMARY
  # Each point's line: the checks (json) and the TFLOP/s of every contestant.
  grep -E "TFLOP/s \(backward\)" $R/timeline-v$v.log | cut -c1-900 | tee -a $SUMMARY
  pack
done

if [ -n "${CAND_DET_VARIANT:-}" ]; then
  timeout ${CAND_DET_S:-60} python3 bench/sm80_bwd_det_ratio.py --plain $PLAIN --reps 6 \
    --points "${CAND_DET_POINTS:-256,16384,1}" --variant $CAND_DET_VARIANT \
    --json $R/det-v$CAND_DET_VARIANT.json > $R/det-v$CAND_DET_VARIANT.log 2>&1
  echo "det ratio v$CAND_DET_VARIANT rc $?" | tee -a $SUMMARY
  grep -E "^D |variant" $R/det-v$CAND_DET_VARIANT.log | cut -c1-600 | tee -a $SUMMARY
  pack
fi

# ncu: FA2's kernel, then the variant's, at the first point.
first_point=${POINTS%%;*}
if [ "${CAND_NCU_S:-60}" != 0 ]; then
timeout ${CAND_NCU_S:-60} ncu --import-source no --section SpeedOfLight --section WarpStateStats \
  --section SourceCounters --section InstructionStats -k "$KERNELS" -c 2 -o $R/ncu-v$NCU_VARIANT \
  python3 bench/sm80_bwd_timeline.py --timeline $TIMELINE --plain $PLAIN --profile-only \
  --points "$first_point" --variant $NCU_VARIANT > $R/ncu_run.log 2>&1
echo "ncu rc $?" | tee -a $SUMMARY
ncu --import $R/ncu-v$NCU_VARIANT.ncu-rep > $R/ncu.log 2>&1
grep -E "Duration|Executed Instructions  |Issue Slots Busy" $R/ncu.log | tee -a $SUMMARY
ncu --import $R/ncu-v$NCU_VARIANT.ncu-rep --page source --csv --print-source sass \
  > $R/source.csv 2>&1
tiles=$(python3 -c "
D, N, c = (int(x) for x in '$first_point'.split(','))
bn = 128 if D <= 128 else 64; bm = 128 if D <= 64 else 64
heads = (16384 // N) * (2048 // D); n_blocks = -(-N // bn); m_blocks = -(-N // bm)
items = sum(m_blocks - (n * bn) // bm for n in range(n_blocks)) if c else n_blocks * m_blocks
print(heads * items * 8)")
python3 bench/sm80_bwd_ncu_phases.py opcodes $R/source.csv 1 $tiles 0 > $R/ncu_by_opcode.txt 2>&1
head -30 $R/ncu_by_opcode.txt | tee -a $SUMMARY
gzip $R/source.csv
rm -f $R/ncu-v$NCU_VARIANT.ncu-rep
pack
fi

# The library's sm80 GPU tests with each candidate table, then the sanitizers on the first.
first_lib=${TEST_LIBS%% *}
for lib in $TEST_LIBS; do
  (cd $DIR/$lib && LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH timeout ${CAND_TESTS_S:-60} \
     ./fattn_cuda_tests --gtest_filter="$TEST_FILTER") > $R/tests-$lib.log 2>&1
  echo "tests $lib rc $?" | tee -a $SUMMARY
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests? ran|FAILED  \]" $R/tests-$lib.log | tee -a $SUMMARY
  pack
done
for tool in memcheck racecheck; do
  for case in $SANITIZE_CASES; do
    (cd $DIR/$first_lib && LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH timeout ${CAND_SANITIZER_S:-45} \
       compute-sanitizer --tool $tool ./fattn_cuda_tests --gtest_filter="$case") \
      > $R/$tool-$(echo $case | tr -c 'a-zA-Z0-9_\n' '_').log 2>&1
    echo "$tool $case rc $?" | tee -a $SUMMARY
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" \
      $R/$tool-$(echo $case | tr -c 'a-zA-Z0-9_\n' '_').log | tail -3 | tee -a $SUMMARY
    pack
  done
done
