#!/bin/bash
# h17-odd80 call (H100, timeout_s 150; no library build): D = 193..208 of the sm80 forward on the
# candidate tiles of bench/sm80_odd_variants.cu (variants 31..35; 32 checked, not timed), beside the table (variant 0 of
# the same shim = the library's kernels: SASS-identical to main's) and PyTorch's flash, and the
# table at D = 256 (issue 5's ratio). The shim (sm80_shim.cu + the 256 bucket's forward instances,
# fp16 + bf16, + the variants; build_shim.sh) and the two scripts come in the carried folder.
#   C=build-h17-odd80/carry OUT=$OUT bash build-h17-odd80/carry/call.sh
set -o pipefail
export PYTHONUNBUFFERED=1
C=${C:-build-h17-odd80/carry}
: "${OUT:?set OUT}"
export PYTHONPATH=$PWD/bench
xz -dc $C/libs17shim.so.xz > /tmp/s17.so || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,power.limit \
  --format=csv,noheader
echo "== $(date +%T) (at $SECONDS s) check: table + 31..35, fp16 + bf16, 9 cases (D 193/200/201/208, causal, GQA, Nq > Nk causal, negative scale)"
timeout 45 python3 $C/check_s17.py --lib /tmp/s17.so > $OUT/check.txt 2>&1
echo "check rc $?: $(grep -c '^ok' $OUT/check.txt) ok, $(tail -1 $OUT/check.txt)"
grep -E '^FAIL|Error|error' $OUT/check.txt | head -8
# Two passes of the turns, the second with the points and the variants in the opposite order.
P="200,2048,0,16,16,fp16;256,2048,0,16,16,fp16;200,2048,1,16,16,fp16;200,2048,0,16,16,bf16;200,512,0"
P_REV=$(echo "$P" | tr ';' '\n' | tac | paste -sd';')
echo "== $(date +%T) (at $SECONDS s) turns pass 1"
timeout 38 python3 $C/sm80_fwd_turns.py --lib /tmp/s17.so --variants 31,33,34,35 --all-dtypes \
  --runs 3 --reps 6 --points "$P" --json $OUT/turns1.json 2>&1 | grep -v Warning | tee $OUT/turns1.txt
echo "== $(date +%T) (at $SECONDS s) turns pass 2"
timeout 38 python3 $C/sm80_fwd_turns.py --lib /tmp/s17.so --variants 35,34,33,31 --all-dtypes \
  --runs 3 --reps 6 --points "$P_REV" --json $OUT/turns2.json 2>&1 | grep -v Warning | tee $OUT/turns2.txt
echo "== $(date +%T) (at $SECONDS s) memcheck: variants 33 and 35, fp16, GQA causal 777 x 777"
MC=$((142 - SECONDS)); [ $MC -gt 60 ] && MC=60  # whatever the 150 s call has left
timeout $MC compute-sanitizer --tool memcheck --error-exitcode 1 python3 $C/check_s17.py \
  --lib /tmp/s17.so --cases 2 --variants 33,35 --dtypes fp16 > $OUT/memcheck.txt 2>&1
echo "memcheck rc $?: $(grep -E 'ERROR SUMMARY' $OUT/memcheck.txt | tail -1) $(tail -1 $OUT/memcheck.txt)"
if [ "${S17_NCU:-0}" = 1 ]; then  # not in the 150 s call: ~40 s more
  echo "== $(date +%T) (at $SECONDS s) ncu: table D = 200, v35 D = 200, table D = 256 (fp16, B = 16, H = 16, N = 2048)"
  timeout 60 ncu --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
    --section InstructionStats --section Occupancy -k regex:forward_kernel -c 2 \
    python3 $C/sm80_fwd_turns.py --lib /tmp/s17.so --variants 35 --all-dtypes --profile table,v35 \
    --points "200,2048,0,16,16,fp16" > $OUT/ncu.txt 2>&1
  timeout 30 ncu --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
    --section InstructionStats --section Occupancy -k regex:forward_kernel -c 1 \
    python3 $C/sm80_fwd_turns.py --lib /tmp/s17.so --profile table \
    --points "256,2048,0,16,16,fp16" >> $OUT/ncu.txt 2>&1
  grep -E "forward_kernel.*Context|Duration|Warp Cycles Per Issued|Issued Warp|Stall|Barrier" \
    $OUT/ncu.txt | sed 's/^ *//' | cut -c1-120 | head -40
fi
echo "== $(date +%T) (at $SECONDS s) done"
