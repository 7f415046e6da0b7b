#!/bin/bash
# h13-fwd90b (v27), call 1 (timeout 195 s: the shared budget's rule left no more): the masked D = 256 kernels' O stores in two groups
# (TileShape::masked_stores_stage_first) in four forms (A / B / B2 / C, candidate-*.patch on
# 7f105a2) against HEAD (cur). Carry: .deps, build-h13fwd90b/carry (shims.tar.xz: cur/A/B/B2/C
# plain shims, tl.tar.xz: cur/B/B2 FATTN_SM90_TIMELINE shims; build-h13fwd90b/build_shims.sh,
# build_tl.sh: only the D = 256 bf16 TU differs between contestants). The working tree holds B.
# 1. the sm90 test build of the working tree, buckets 64 / 128 / 256 (background, -j12);
# 2. bench/sm90_candidates_call.sh (tag fwd90b): cur / A / B / B2 / C / cuDNN in turns, twice
#    (run 2 reversed): D = 256 causal N = 512 / 1k / 2k / 4k (changed), D = 256
#    512 non-causal and D = 128 512 causal (controls: identical kernels); ncu at 256/512 causal;
# 3. bench/sm90_timeline.py at D = 256 N = 512 causal for cur and B (records -> tl.tar.xz);
# 4. the sm90 GPU tests of B; memcheck + racecheck on the two one-step cases and a multi-round one.
source scripts/gpu-env.sh; set -o pipefail
B=build-h13fwd90b
L=$OUT/steps.log
source bench/sm90_call_steps.sh
sm90_build_tests $B "64;128;256"
P="256,512,1;256,1024,1;256,2048,1;256,4096,1;256,512,0;128,512,1"
for tag in fwd90b; do
  CAND_TAG=$tag CAND_BUILD=$B CAND_NAMES="A B B2 C" CAND_RUN_S=60 CAND_POINTS="$P" \
    CAND_NCU_POINTS="256,512,1" \
    CAND_TITLE="h13-fwd90b: masked D = 256 O stores in two groups (A / B / B2 / C) against HEAD (cur)" \
    bash bench/sm90_candidates_call.sh > /dev/null 2>&1
  echo "candidates $tag rc $? at ${SECONDS} s" >> $L
done
W=/tmp/tl; mkdir -p $W && tar -xJf $B/carry/tl.tar.xz -C $W && tar -xJf $B/carry/shims.tar.xz -C $W
for v in cur B; do
  timeout 40 python3 bench/sm90_timeline.py --timeline $W/${v}_tl.so --plain $W/$v.so --out $W/out-$v \
    --points "256,512,1" --reps 4 > $W/tl-$v.log 2>&1
  echo "timeline $v rc $? at ${SECONDS} s" >> $L
done
tar -cJf $OUT/tl.tar.xz -C $W out-cur out-B tl-cur.log tl-B.log
sm90_run_tests $B $L 100 30 \
  '*stage_first_d256_causal_one_step:*stage_first_d250_tail_one_step:*keys_ascending_d256_more_queries'
tar -czf $OUT/logs.tgz -C $OUT build.log tests.log sanitizers.log && rm -f $OUT/build.log $OUT/tests.log $OUT/sanitizers.log
cat $L
