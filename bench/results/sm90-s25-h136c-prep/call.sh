#!/bin/bash
# s25 call: packed D = 136 causal (0.76x packed D = 144 causal where non-causal is 0.93x; desk
# work s25-h136c, NOTES.md here). Three shims, built on the desk from these trees and carried:
#   old   = main 221b474,
#   new   = branch s25-h136c: causal sector-box launches up to 16 query tiles per pair run one
#           (batch, head) pair per scheduler group (host only; every kernel SASS-identical),
#   nosec = main 221b474 + nosector.patch: causal launches never take the sector-box kernels
#           (D = 72 / 104 / 136 / 152 / 200 / 216 packed run the plain width kernels, v30 off).
# old is first: --same-outputs compares new (expected: yes, same tiles, other CTAs) and nosec
# (expected: NO at D = 16k + 8 causal, the Q·Kᵀ columns sum in other k-steps) with it.
# Run (from the branch's checkout; the shims travel in build-s25-h136c):
#   run(command="bash bench/results/sm90-s25-h136c-prep/call.sh",
#       carry=["build-s25-h136c", ".deps"], timeout_s=600)
source scripts/gpu-env.sh 2>/dev/null
T=build-s25-h136c
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
for t in old new nosec; do xz -dc $T/$t.so.xz > /tmp/$t.so || exit 1; done
# The sm90 forward tests of this tree (the new sector_d136_causal_* cases among the sector
# ones), built in the background while the bench runs.
checks=(--families sm90 --dtypes "fp16;bf16" --no-bench --filter '*Sm90Forward*sector*')
mkdir -p "$OUT/gc"
( OUT=$OUT/gc nice -n 19 scripts/gpu-check "${checks[@]}" --no-tests --no-sanitizers \
    --jobs 12 > "$OUT/gc-build.txt" 2>&1 ) &
build_pid=$!
libs=(--lib old=/tmp/old.so --lib new=/tmp/new.so --lib nosec=/tmp/nosec.so)
# 136 / 152 2k causal: the candidate's launches (192 bucket, widths 144 / 160, 16 query tiles).
# Controls, the same launch in old and new: 136 non-causal, 136 4k causal (32 query tiles, past
# the bound), 144 causal (plain kernel), 129 causal (heads as columns), 72 / 200 causal (sector
# kernels of the 128 / 256 buckets, no bound there; nosec changes them).
timeout 200 python3 bench/sm90_vs_cudnn.py "${libs[@]}" --bench --same-outputs --no-flash \
  --rounds 10 --layout bshd --shape 16,16 --dtype fp16 \
  --points '136,2048,1;136,2048,0;144,2048,1;129,2048,1;152,2048,1;136,4096,1;72,2048,1;200,2048,1' \
  --json "$OUT/fp16.json" 2>&1 | grep -v -e Warning -e "cudnn failed" | tee "$OUT/fp16.txt"
echo "== $(date +%T) (at $SECONDS s) bench rc ${PIPESTATUS[0]}"
# Rows padded to 144 elements (288 bytes, every head on the 32-byte grid): the plain width-144
# kernel on the same D = 136 in the rule's 33-pair groups (old; new runs the same launch, as
# these are no sector-box launches). What D = 136 causal reaches without the sector shift.
timeout 60 python3 bench/sm90_vs_cudnn.py --lib old=/tmp/old.so --bench --no-flash --rounds 10 \
  --layout pad --shape 16,16 --dtype fp16 --points '136,2048,1;136,2048,0' \
  --json "$OUT/pad.json" 2>&1 | grep -v -e Warning -e "cudnn failed" | tee "$OUT/pad.txt"
# Under ncu (two launches each, the second warm; bf16, B = 8 and H = 2048 / D as --profile
# makes them: packed D = 136 still takes the sector kernels at odd heads): time, DRAM bytes, L2
# hit rate and read requests of old / new at 136 causal, and of old at 144 causal.
for p in old:136 new:136 old:144; do
  t=${p%:*}; D=${p#*:}
  timeout 60 ncu --clock-control none -k regex:forward_kernel -c 2 --metrics \
    gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,lts__t_requests_srcunit_tex_op_read.sum \
    python3 bench/sm90_vs_cudnn.py --lib /tmp/$t.so --profile $D,2048,1 > "$OUT/ncu-$t-$D.txt" 2>&1
  echo "== ncu $t D=$D rc $?"
  grep -E "duration|dram__|hit_rate|requests" "$OUT/ncu-$t-$D.txt" | tail -4
done
wait "$build_pid"
tail -3 "$OUT/gc-build.txt"
OUT=$OUT/gc timeout $((590 - SECONDS)) scripts/gpu-check "${checks[@]}" --no-sanitizers \
  --bundle 2>&1 | tail -14
echo "== $(date +%T) (at $SECONDS s) done"
