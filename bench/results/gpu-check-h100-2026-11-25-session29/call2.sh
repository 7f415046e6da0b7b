#!/bin/bash
# Twenty-ninth session, call 2: what the small-shared-memory tiles cost per launch, timed on the
# H100 under `fattn bench --shared-memory-per-block` (the tiles of an A100 / an sm_86-89 card run
# here; a capped H100 still fits more blocks per SM and has Hopper's bandwidth, so this is each
# tile's cost relative to the table's on one GPU, not an sm_86's speed). Each point uncapped and
# capped in one process order: uncapped, capped, uncapped again (turns), bf16 / fp32, no check.
source scripts/gpu-env.sh 2>/dev/null
OUT=$OUT/build timeout 300 scripts/gpu-check --families "simt;sm80" --no-tests --no-sanitizers --no-bench 2>&1 | tail -3
F=$(find build-gpu-check -type f -name fattn -perm -u+x | head -1)
echo "cli: $F"
R="--repeats 5 --warmup 2 --no-check --json"
mkdir -p $OUT/perf
run() {  # name, cap, args...
  local name=$1 cap=$2; shift 2
  local capflag=""; [ "$cap" != 0 ] && capflag="--shared-memory-per-block $cap"
  $F bench $R $capflag "$@" > $OUT/perf/$name.cap$cap.json 2> $OUT/perf/$name.cap$cap.err || echo "failed: $name cap $cap: $(tail -2 $OUT/perf/$name.cap$cap.err)"
}
SM80="--backend cuda_sm80 --dtype bf16 --batch 16 --heads 16 --seqlen 2048 --sweep head-dim"
for round in 1 2; do
  for cap in 0 101376; do
    run sm80_fwd_r$round $cap $SM80 --direction fwd --sweep-values 64,96,128,160,192,200,256
    run sm80_bwd_r$round $cap $SM80 --direction bwd --sweep-values 64,96,128,160,192
    run sm80_bwd_causal_r$round $cap $SM80 --direction bwd --causal --sweep-values 64,128,192
  done
done
SIMT="--backend cuda_simt --dtype fp32 --batch 4 --heads 16 --seqlen 2048 --sweep head-dim --sweep-values 64,128,256"
for cap in 0 166912 101376; do
  run simt_fwd $cap $SIMT --direction fwd
  run simt_bwd $cap $SIMT --direction bwd
done
echo "== at $SECONDS s"
cd $OUT/perf && tar czf ../perf.tgz . && ls | wc -l
