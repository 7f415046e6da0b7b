#!/bin/bash
# h17-det64 call 1: v32 (OrderedDqAtomicsInPhaseB on the deterministic D = 64 NoMask launches)
# in turns beside HEAD's deterministic kernel (shim variant 320) and the default mode
# (bench/sm80_bwd_det_ratio.py: FA2 fwd, default, det (= this tree's launch_backward), v320
# default, v320 det (HEAD), FA2 bwd), then 321 / 322 / 323 (v32 with 16 / 8 / 4 pairs per head
# group at N up to 16k) with the time left, while the library's sm80 tests build (head dim 64,
# fp16 + bf16, sm_90a) from build-h17-det64/tree.tgz; then the sm80 backward GPU tests,
# memcheck + racecheck on the two deterministic NoMask d64 cases. Shim:
#   SM80_TIMELINE_ONLY_64=1 SM80_SHIMS=plain bench/sm80_bwd_timeline_build.sh build-h17-det64/shim 90a
# Run from the repository root: bash build-h17-det64/call1.sh
source scripts/gpu-env.sh
source bench/sm80_call_steps.sh
export PYTHONUNBUFFERED=1
LIMIT=${LIMIT:-192}
left() { echo $(( LIMIT - SECONDS )); }
SM80_FORWARD_TESTS='*cuda_sm80*:*Sm80Backward*'
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
sm80_build_tree_tests build-h17-det64/tree.tgz "64" 14 120
SM80_BWD_SHIM=build-h17-det64/shim/plain/libsm80bwdtimeline.so
P8="64,1024,0;64,1024,1;64,2048,0;64,2048,1;64,4096,0;64,4096,1;64,8192,0;64,8192,1"
sm80_bwd_ab 320 "$P8" 90
sm80_run_forward_tests 30 25 '*Sm80Backward*ordered_spread_nomask_d64*:*Sm80Backward*nomask_gqa_d64*'
echo "== at $SECONDS s"
t=$(( $(left) - 45 )); [ "$t" -ge 15 ] && sm80_bwd_ab 321 "64,8192,0;64,16384,0" "$t"
t=$(( $(left) - 22 )); [ "$t" -ge 12 ] && sm80_bwd_ab 322 "64,4096,0;64,8192,0" "$t"
t=$(( $(left) - 3 )); [ "$t" -ge 12 ] && sm80_bwd_ab 323 "64,4096,0" "$t"
sm80_pack_logs
echo "== done at $SECONDS s"
