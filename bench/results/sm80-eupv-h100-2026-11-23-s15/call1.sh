#!/bin/bash
# h15-eupv call 1 (H100, timeout_s 200): ExponentsUnderPv on the five tiles that fit it with 0
# spills, in turns (D = 129: packed rows, the shifted-windows kernel of Narrow<192>, which takes
# the option with it). OLD = main's sm80 forward instances of the 128, 192 and 256 buckets (fp16 and
# bf16), NEW = the candidate tree's (f363d74), each linked with bench/sm80_shim.cu and
# fwd_shim_stubs.cu; PyTorch's flash in the same turns. Meanwhile the candidate's sm80 library and
# tests (128 + 192 + 256, fp16 + bf16, sm_90a) build in the background; then the sm80 forward tests
# (the 4096-row D = 64 cases left out: an unchanged kernel, ~22 s) and memcheck / racecheck on
# one case each of Narrow<128> NoMask (d96), ForwardConfig<192> WindowMask (d192 causal) and
# Narrow<192> NoMask (d136).
#   source scripts/gpu-env.sh; C=build-h15-eupv/carry OUT=$OUT bash build-h15-eupv/carry/call1.sh
set -o pipefail
export PYTHONUNBUFFERED=1
C=${C:?carry dir}
TURNS=$PWD/bench/sm80_fwd_turns.py
source bench/sm80_call_steps.sh
sm80_build_tree_tests $C/tree.tgz "128;192;256" 16 120
xz -dc $C/old.so.xz > /tmp/old.so && xz -dc $C/new.so.xz > /tmp/new.so
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,power.limit \
  --format=csv,noheader
echo "== $(date +%T) (at $SECONDS s) turns"
f="16,16,fp16"
points="128,2048,0,$f"
for causal in 0 1; do
  for D in 96 136 192 200 256 129; do points+=";$D,2048,$causal,$f"; done
done
points+=";192,512,0;192,8192,0;256,512,0;256,8192,0"
timeout 95 python3 $TURNS --old /tmp/old.so --new /tmp/new.so --runs 5 --json $OUT/turns.json \
  --points "$points" 2>&1 | grep -v Warning | tee $OUT/turns.txt
echo "== $(date +%T) (at $SECONDS s) turns done"
SM80_FORWARD_TESTS='*cuda_sm80*:*Sm80Forward*:*Sm80Misaligned*-*cuda_sm80_large*'
sm80_run_forward_tests 32 18 \
  'StepClasses/*d96:RescalePastThreshold/*d192_causal_scale5:RescalePastThreshold/*d136_scale5'
sm80_pack_logs
echo "== $(date +%T) (at $SECONDS s) done"
