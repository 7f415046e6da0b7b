#!/usr/bin/env bash
# h14-odd80 device call: the candidate tree's sm80 GPU tests (192 bucket) built in the background,
# HEAD and candidate d192-forward shims (built here, carried in build-h14odd80/c/shims.tar.xz)
# timed in turns beside PyTorch's flash, then the forward tests and both sanitizers.
#   bash bench/results/sm80-odd-h100-2026-11-23-s14/call.sh   (carry .deps, build-h14odd80/c)
set -u
source scripts/gpu-env.sh
source bench/sm80_call_steps.sh
C=build-h14odd80/c
sm80_build_tree_tests "$C/tree.tgz" "192" 14
mkdir -p /tmp/s && tar xJf "$C/shims.tar.xz" -C /tmp/s
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > "$OUT/gpu.txt"
points=""
for dtype in fp16 bf16; do
  for causal in 0 1; do
    for D in 129 136 192; do points+="$D,2048,$causal,16,16,$dtype;"; done
  done
done
echo "== $(date +%T) turns"
timeout 200 python3 bench/sm80_fwd_turns.py --old /tmp/s/old/libsm80shim.so \
  --new /tmp/s/new/libsm80shim.so --points "${points%;}" --runs 5 --json "$OUT/turns.json" \
  2>&1 | tee "$OUT/turns.txt"
sm80_run_forward_tests 150 120 '*ShiftedWindows*:*d129_packed_gqa*'
sm80_pack_logs
