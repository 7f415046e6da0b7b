#!/usr/bin/env bash
# h15-odd80 device call 2 (timeout_s 150): call 1's candidate lost 1.2 % at D = 129 non-causal.
# Three contestants in the same turns: old = main 60d602d, new = the candidate without the held
# K masks (Q copied beside the first K tile + the review's leftovers), v1 (bf16 points) = call
# 1's candidate (held-masks.patch on it; -Dsm80=sm80_c2, variant_c2.cu, in the new shim). Then
# the forward tests and both sanitizers on the new candidate's tree.
#   bash build-h15-odd80/c/call2.sh   (carry .deps, build-h15-odd80/c: tree.tgz, shims.tar.xz, this)
set -u
source scripts/gpu-env.sh
source bench/sm80_call_steps.sh
C=build-h15-odd80/c
sm80_build_tree_tests "$C/tree.tgz" "192" 14 100
mkdir -p /tmp/s && tar xJf "$C/shims.tar.xz" -C /tmp/s
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > "$OUT/gpu.txt"
points=""
for dtype in bf16 fp16; do
  for causal in 0 1; do
    for D in 129 192; do points+="$D,2048,$causal,16,16,$dtype;"; done
  done
done
echo "== $(date +%T) turns"
timeout 60 python3 bench/sm80_fwd_turns.py --old /tmp/s/old/libsm80shim.so \
  --new /tmp/s/new/libsm80shim.so --variants 1 --points "${points%;}" --runs 5 \
  --json "$OUT/turns.json" 2>&1 | tee "$OUT/turns.txt"
sm80_run_forward_tests 42 25 '*ShiftedWindows*:*d129_packed*'
sm80_pack_logs
echo "== $(date +%T) end"
