#!/bin/bash
# For the next session (after next-call-a.sh passes): the 99 KB tiles timed on the H100 capped to
# 99 KB per block, old (this tree) and new (99kb-tiles.patch + s30-bwdsmall2) in turns, two
# rounds, bf16, B = 16, H = 16, N = 2048. The backward at 256 has no old sm80 path: simt is what
# those problems ran. Packs $OUT after every timing. Run with timeout_s 600.
source scripts/gpu-env.sh 2>/dev/null
D=bench/results/gpu-check-h100-2026-11-25-session30
ROOT=$PWD
pack() { (cd $OUT && tar czf results.tgz --exclude=results.tgz . 2>/dev/null); echo "== $1 at $SECONDS s"; }
rm -rf /tmp/old && mkdir -p /tmp/old && tar --exclude='./build*' -cf - . | tar -xf - -C /tmp/old
patch -p1 -s < $D/99kb-tiles.patch || exit 1
python3 -c "
import re; t=open('bench/results/sm80-s30-bwdsmall2/candidate.patch').read()
print(''.join(p for p in re.split(r'(?m)^(?=diff --git )', t) if p.startswith('diff --git') and ' b/bench/results/' not in p.split(chr(10))[0]), end='')" > /tmp/small2.patch
patch -p1 -s < /tmp/small2.patch || exit 1
B="--families sm80 --head-dims 128;192;256 --dtypes bf16 --no-tests --no-sanitizers --no-bench"
(cd /tmp/old && timeout 240 scripts/gpu-check --build-dir build-old --jobs 5 $B > /tmp/old-build.log 2>&1) &
timeout 250 scripts/gpu-check --build-dir build-new --jobs 11 $B > $OUT/build-new.log 2>&1
wait; tail -2 /tmp/old-build.log $OUT/build-new.log
OLD=/tmp/old/build-old/tools/cli/fattn; NEW=$ROOT/build-new/tools/cli/fattn
mkdir -p $OUT/perf
R="--repeats 5 --warmup 2 --no-check --json --dtype bf16 --batch 16 --heads 16 --seqlen 2048 --sweep head-dim --shared-memory-per-block 101376 --backend cuda_sm80"
for round in 1 2; do
  for v in old new; do
    F=$OLD; [ $v = new ] && F=$NEW
    [ $SECONDS -gt 520 ] && break 2
    $F bench $R --direction fwd --sweep-values 151,200,201,229 > $OUT/perf/fwd_${v}_r$round.json 2>&1
    $F bench $R --direction bwd --sweep-values 80,96,128,160,192,256 > $OUT/perf/bwd_${v}_r$round.json 2>&1
    pack "$v r$round"
  done
done
[ $SECONDS -lt 540 ] && $NEW bench ${R/cuda_sm80/cuda_simt} --direction bwd --sweep-values 256 > $OUT/perf/bwd_simt.json 2>&1
pack done
