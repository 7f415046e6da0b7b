#!/bin/bash
# Call 2 (h10-fwd90): (1) co (forced co-resident), cost (co + stagger.patch: of the two CTAs of an
# SM, one starts half a first tile late) and cur (HEAD) in turns with cuDNN, twice; (2) the phase
# timeline of co and cost at D = 128 N = 512 non-causal, every CTA recording (both CTAs of an SM
# share its %clock). Carry: .deps, build-h10cur.
source scripts/gpu-env.sh; set -o pipefail
S=bench/sm90_vs_cudnn.py
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
mkdir -p /tmp/co && cp -r src include /tmp/co/
sed -i 's/kCoResidentMaxSeqlenK = 1024;/kCoResidentMaxSeqlenK = 1LL << 40;/' /tmp/co/src/cuda/sm90/tile_config.hpp
cp -r /tmp/co /tmp/cost && (cd /tmp/cost && patch -p1 < $OLDPWD/bench/results/sm90-fwd-h100-2026-11-23-s10/stagger.patch)
SM90_SOURCE_ROOT=/tmp/co bench/sm90_build.sh build-h10/co 6 > $OUT/build_co.log 2>&1 &
SM90_SOURCE_ROOT=/tmp/cost bench/sm90_build.sh build-h10/cost 6 > $OUT/build_cost.log 2>&1 &
SM90_SOURCE_ROOT=$PWD/build-h10cur bench/sm90_build.sh build-h10/cur 4 > $OUT/build_cur.log 2>&1 &
wait
SM90_SOURCE_ROOT=/tmp/co bench/sm90_timeline_build.sh build-h10/tl-co 6 > $OUT/build_tl_co.log 2>&1 &
SM90_SOURCE_ROOT=/tmp/cost bench/sm90_timeline_build.sh build-h10/tl-cost 6 > $OUT/build_tl_cost.log 2>&1 &
for f in co cost cur; do tail -n 1 $OUT/build_$f.log; done
timeout 60 python3 $S --lib cost=build-h10/cost/libsm90shim.so --check > $OUT/check_cost.log 2>&1
echo "check cost rc $?: $(grep -E 'check:' $OUT/check_cost.log)"
B="--bench --no-flash --dims 128,64 --seqlens 512,1024,4096 --rounds 10"
L="--lib co=build-h10/co/libsm90shim.so --lib cost=build-h10/cost/libsm90shim.so --lib cur=build-h10/cur/libsm90shim.so"
LR="--lib cur=build-h10/cur/libsm90shim.so --lib cost=build-h10/cost/libsm90shim.so --lib co=build-h10/co/libsm90shim.so"
wait
timeout 100 python3 $S $L $B --json $OUT/bench3.json > $OUT/bench3.log 2>&1
echo "bench3 rc $?"; grep -E "^\||geometric|GEMM" $OUT/bench3.log
timeout 100 python3 $S $LR $B --json $OUT/bench4.json > $OUT/bench4.log 2>&1
echo "bench4 rc $?"; grep -E "^\||geometric|GEMM" $OUT/bench4.log
for v in co cost; do
  tail -n 1 $OUT/build_tl_$v.log
  timeout 60 python3 bench/sm90_timeline.py --timeline build-h10/tl-$v/timeline/libsm90timeline.so \
    --plain build-h10/tl-$v/plain/libsm90timeline.so --out /tmp/tl-$v --ctas-per-sm 2 \
    --points "128,512,0" --reps 5 > $OUT/timeline_$v.log 2>&1
  echo "timeline $v rc $?"; tail -n 3 $OUT/timeline_$v.log
done
tar czf $OUT/timelines.tgz -C /tmp tl-co tl-cost
