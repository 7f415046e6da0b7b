#!/usr/bin/env bash
# h15-odd80 device call (one, timeout_s 240): the candidate tree's sm80 GPU tests (192 bucket,
# fp16 + bf16, sm_90a) built in the background; main's and the candidate's d192-forward shims
# (bench/sm80_shim.cu + the d192 forward instances + fwd192_shim_stubs.cu of the s14 results,
# built on the dev machine) timed in turns beside PyTorch's flash; then the forward tests and
# both sanitizers on the shifted-windows / packed D = 129 cases.
#   bash build-h15-odd80/c/call.sh   (carry .deps, build-h15-odd80/c: tree.tgz, shims.tar.xz, this)
set -u
source scripts/gpu-env.sh
source bench/sm80_call_steps.sh
C=build-h15-odd80/c
sm80_build_tree_tests "$C/tree.tgz" "192" 14 150
mkdir -p /tmp/s && tar xJf "$C/shims.tar.xz" -C /tmp/s
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > "$OUT/gpu.txt"
points=""
for dtype in fp16 bf16; do
  for causal in 0 1; do
    for D in 129 192 136; do points+="$D,2048,$causal,16,16,$dtype;"; done
  done
done
echo "== $(date +%T) turns"
timeout 110 python3 bench/sm80_fwd_turns.py --old /tmp/s/old/libsm80shim.so \
  --new /tmp/s/new/libsm80shim.so --points "${points%;}" --runs 5 --json "$OUT/turns.json" \
  2>&1 | tee "$OUT/turns.txt"
sm80_run_forward_tests 45 35 '*ShiftedWindows*:*d129_packed*'
sm80_pack_logs
echo "== $(date +%T) end"
