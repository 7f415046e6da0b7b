#!/bin/bash
# s24 call: the staged O's whole-word passes a row a pass (A) and the 128 bucket's own-buffer
# staging (B) (desk work s24-ostage3, NOTES.md here) in turns beside main (ed78217), on packed odd
# head dims, then the Sm90Unaligned GPU tests (StagedOutput cases included) and both sanitizers
# on the tree with B on. Three shims, each built from a source tarball (so the call does not
# depend on which branch the device's working tree holds; bench/sm90_build.sh and
# bench/sm90_shim.cu come from it):
#   all = this branch with kWidestOwnBufferStagedOutputWidth = 96 (A + B: widths 80 / 96 staged
#         in the 128 bucket's own O buffer),
#   new = this branch as committed (A only; the 128 bucket on the register pairs, as main),
#   old = main ed78217.
# `all` is first: --same-outputs compares the others' outputs with its, bit for bit.
# Prepare on the desk machine (done by the desk session; the lead's checkout runs it):
#   D=build-s24-ostage3; mkdir -p $D
#   git archive main src include | gzip > $D/old-tree.tar.gz
#   git archive s24-ostage3 src include | gzip > $D/new-tree.tar.gz
#   all-tree.tar.gz: new-tree's files with kWidestOwnBufferStagedOutputWidth = 96 (NOTES.md)
# Run:
#   run(command="bash bench/results/sm90-s24-ostage3-prep/call.sh",
#       carry=["build-s24-ostage3", ".deps"], timeout_s=600)
# Packed dims only, so cuDNN refuses every point ("cudnn failed" lines, nan columns).
source scripts/gpu-env.sh 2>/dev/null
T=build-s24-ostage3
DEADLINE_S=590
FP16_UNTIL_S=390   # the fp16 bench stops here at the latest
BF16_UNTIL_S=480   # the bf16 bench likewise; the tests and sanitizers take the rest (~60 s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
for t in old all new; do
  mkdir -p /tmp/tree-$t && tar xzf $T/$t-tree.tar.gz -C /tmp/tree-$t || exit 1
  ( SM90_SOURCE_ROOT=/tmp/tree-$t bench/sm90_build.sh /tmp/sh-$t 5 > "$OUT/shim-$t.log" 2>&1 ) &
done
wait
tail -qn 1 "$OUT"/shim-*.log
for t in old all new; do
  echo "$t: $(grep -h 'bytes spill' /tmp/sh-$t/ptxas.log 2>/dev/null |
    grep -vc ' 0 bytes spill stores, 0 bytes spill loads') kernels spilling"
done
echo "== $(date +%T) (at $SECONDS s) shims built"
# The tests' tree: this checkout with the all tree's src and include (A at every V-ring width,
# B at widths 80 / 96), built in the background while the bench runs.
mkdir -p /tmp/repo-all && tar cf - --exclude='./build*' --exclude='./gpu-check-out' . |
  tar xf - -C /tmp/repo-all && tar xzf $T/all-tree.tar.gz -C /tmp/repo-all || exit 1
checks=(--families sm90 --dtypes "fp16;bf16" --no-bench --filter '*Sm90Unaligned*')
mkdir -p "$OUT/gc"
( OUT=$OUT/gc nice -n 19 /tmp/repo-all/scripts/gpu-check "${checks[@]}" --no-tests \
    --no-sanitizers --jobs 12 > "$OUT/gc-build.txt" 2>&1 ) &
build_pid=$!
libs=(--lib all=/tmp/sh-all/libsm90shim.so --lib new=/tmp/sh-new/libsm90shim.so
      --lib old=/tmp/sh-old/libsm90shim.so)
# 74 / 76 / 90: 128 bucket (widths 80 / 80 / 96; 4-, 8- and 4-byte rows): staged in `all` only
# (B), the register pairs in new and old; 129: 192 bucket (width 144), 201 / 234: 256 bucket
# (widths 208 / 240): staged in all three, A's passes in all and new. B = 16, H = 16: token
# strides of 32·D bytes, the 16-byte multiples heads as columns needs.
timeout $((FP16_UNTIL_S - SECONDS)) python3 bench/sm90_vs_cudnn.py "${libs[@]}" --bench \
  --dims 74,76,90,129,201,234 --seqlens 2048 --dtype fp16 --shape 16,16 --causal 0,1 \
  --rounds 10 --same-outputs --no-flash --json "$OUT/fp16.json" 2>&1 |
  grep -v -e Warning -e "cudnn failed" -e scaled_dot_product | tee "$OUT/fp16.txt"
echo "== $(date +%T) (at $SECONDS s) fp16 bench rc ${PIPESTATUS[0]}"
timeout $((BF16_UNTIL_S - SECONDS)) python3 bench/sm90_vs_cudnn.py "${libs[@]}" --bench \
  --dims 74,201 --seqlens 2048 --dtype bf16 --shape 16,16 --causal 0 \
  --rounds 10 --same-outputs --no-flash --json "$OUT/bf16.json" 2>&1 |
  grep -v -e Warning -e "cudnn failed" -e scaled_dot_product | tee "$OUT/bf16.txt"
echo "== $(date +%T) (at $SECONDS s) bf16 bench rc ${PIPESTATUS[0]}"
wait "$build_pid"
tail -3 "$OUT/gc-build.txt"
OUT=$OUT/gc timeout $((DEADLINE_S - SECONDS)) /tmp/repo-all/scripts/gpu-check \
  "${checks[@]}" --bundle 2>&1 | tail -14
echo "== $(date +%T) (at $SECONDS s) done"
(cd "$OUT" && tar czf rest.tgz --remove-files \
  $(ls | grep -v -e '^fp16.txt$' -e '^bf16.txt$' -e '^rest.tgz$'))
