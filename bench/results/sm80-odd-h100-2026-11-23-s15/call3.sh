#!/usr/bin/env bash
# Prepared for a later call (timeout_s 180; not run in the fifteenth session): branch
# h15-odd80-d131 (shifted windows for D = 129..137, Q beside the first K tile, the review's
# leftovers) against main, with branch h15-odd80 (the same without D = 131..135) as v1 on the bf16
# points, then the forward tests and both sanitizers on the d131 tree.
#   bash build-h15-odd80/c3call/call3.sh  (carry .deps, build-h15-odd80/c3call: tree.tgz,
#   shims.tar.xz = old: main 60d602d's d192 forward; new: h15-odd80-d131's + h15-odd80's bf16
#   compiled with -Dsm80=sm80_c3 and variant_c2.cu as variant 1; this script)
set -u
source scripts/gpu-env.sh
source bench/sm80_call_steps.sh
C=build-h15-odd80/c3call
sm80_build_tree_tests "$C/tree.tgz" "192" 14 100
mkdir -p /tmp/s && tar xJf "$C/shims.tar.xz" -C /tmp/s
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > "$OUT/gpu.txt"
points=""
for dtype in bf16 fp16; do
  for causal in 0 1; do
    for D in 129 133 192; do points+="$D,2048,$causal,16,16,$dtype;"; done
  done
done
points+="131,2048,0,16,16,fp16;135,2048,0,16,16,fp16"
echo "== $(date +%T) turns"
timeout 80 python3 bench/sm80_fwd_turns.py --old /tmp/s/old/libsm80shim.so \
  --new /tmp/s/new/libsm80shim.so --variants 1 --points "$points" --runs 5 \
  --json "$OUT/turns.json" 2>&1 | tee "$OUT/turns.txt"
sm80_run_forward_tests 45 35 '*ShiftedWindows*:*d129_packed*'
sm80_pack_logs
echo "== $(date +%T) end"
