#!/bin/bash
# One call on the GPU machine (~200 s; give it timeout_s 300) for the Hopper backward's CTA order
# (src/cuda/sm90/backward_cta_order.hpp; docs/perf-notes.md, "Hopper backward: CTA order under
# causal masks", "Prepared: grouped heaviest-first"):
#   1. builds, in parallel: bench/sm90_bwd_variants.cu (each bucket's row in the natural order
#      and heaviest first within groups of 4 and of 8 (head, batch) pairs, one shim) and the
#      library pruned to sm90, D 64/128/256, fp16+bf16, sm_90a, with heaviest_first_groups_of_4
#      edited into this machine's copy of every row (so that the GPU tests and racecheck run the
#      grouped mapping; fattn_cuda_bench's forward does not depend on it);
#   2. times the three orders side by side (taking turns, three rounds) with SDPA cuDNN in the
#      same process, backward alone and forward+backward (fattn's forward from fattn_cuda_bench),
#      and prints each grouped order's ratio to the natural one;
#   3. the sm90 backward GPU tests and the shared suite's small cuda_sm90 bf16 cases;
#   4. racecheck on two small causal cases.
# Usage (device call, carry [".deps"], timeout_s 300):
#   source scripts/gpu-env.sh; bench/sm90_bwd_order_device_run.sh 2>&1 | tee $OUT/run.log
# Logs land in $OUT as each step ends. (The first call of this script, with the global
# heaviest_first order, took 146 s with 6 variants: bench/results/sm90-bwd-h100-2026-11-22-s6b/.)
set -o pipefail
source scripts/gpu-env.sh
export PYTHONUNBUFFERED=1
OUT=${OUT:-$PWD/sm90-bwd-order-out}
mkdir -p "$OUT"
BUILD=build-bwd90-order
TESTS=$BUILD/tests/cuda/fattn_cuda_tests
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader

start=$SECONDS
sed -i 's/CtaOrder cta_order = CtaOrder::natural;/CtaOrder cta_order = CtaOrder::heaviest_first_groups_of_4;/' \
  src/cuda/sm90/backward_tile_config.hpp
echo "library rows' order: $(grep -o 'CtaOrder cta_order = [a-zA-Z0-9:_]*' src/cuda/sm90/backward_tile_config.hpp)"
{
  cmake -S . -B $BUILD -G Ninja -DCMAKE_BUILD_TYPE=Release -DFATTN_CUDA=ON \
    -DFATTN_CUDA_FAMILIES=sm90 -DFATTN_CUDA_HEAD_DIMS="64;128;256" -DFATTN_CUDA_DTYPES="fp16;bf16" \
    -DFATTN_CUDA_ARCHS=90a && ninja -C $BUILD -j12 fattn_cuda_tests fattn_cuda_bench
} > $OUT/build.log 2>&1 &
library=$!
bench/sm90_bwd_variants_build.sh $BUILD-variants 4 > $OUT/variants-build.log 2>&1
echo "variants build rc $?"
wait $library
rc=$?
echo "library build rc $rc in $((SECONDS - start)) s"
grep -hE "error|spill|C75[0-9][0-9]" $OUT/build.log $OUT/variants-build.log | sort | uniq -c | head -8
[ $rc -eq 0 ] || exit 1

timeout 130 python3 bench/sm90_bwd_variants.py --lib $BUILD-variants/libsm90bwdvariants.so \
  --bench --head-dims 64,128,256 --peers cudnn --rounds 3 \
  --forward-binary $BUILD/tests/cuda/fattn_cuda_bench --json $OUT/order.json > $OUT/order.log 2>&1
echo "order bench rc $?"
cat $OUT/order.log

timeout 35 $TESTS --gtest_filter='*Sm90Backward*:*cuda_sm90_small_bfloat16*' > $OUT/gtest.log 2>&1
echo "gtest rc $?: $(grep -cE '^\[       OK' $OUT/gtest.log) ok, $(grep -cE '^\[  FAILED  \]' $OUT/gtest.log) failed lines"
grep -E "FAILED  \]|Failure|PASSED|ms total\)$" $OUT/gtest.log | tail -8

timeout 25 compute-sanitizer --tool racecheck $TESTS \
  --gtest_filter='*Sm90Backward*/cta_order_causal_d64:*Sm90Backward*/causal_nq_gt_nk_d128' \
  > $OUT/racecheck.log 2>&1
echo "racecheck rc $?: $(grep -E 'RACECHECK SUMMARY' $OUT/racecheck.log | tail -1)"
grep -m5 -E "hazard|Race|FAILED" $OUT/racecheck.log
echo "total $((SECONDS - start)) s"
