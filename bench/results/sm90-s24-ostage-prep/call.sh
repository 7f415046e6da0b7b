#!/bin/bash
# s24 call: the cheaper staging addresses of the heads-as-columns staged O (desk work s24-ostage,
# NOTES.md here) in turns beside main (559c953), on packed odd head dims, then the Sm90Unaligned
# GPU tests (StagedOutput cases included) and both sanitizers on the tree that stages everywhere.
# Three shims, each built from a source tarball (so the call does not depend on which branch the
# device's working tree holds; bench/sm90_build.sh and bench/sm90_shim.cu come from it):
#   all = this branch with kWidestStagedOutputWidth = 256 (staging at every V-ring width),
#   tab = this branch as committed (staging up to width 208, as main),
#   old = main 559c953.
# `all` is first: --same-outputs compares the others' outputs with its, bit for bit.
# Prepare on the desk machine (done by the desk session; the lead's checkout runs it):
#   D=build-s24-ostage; mkdir -p $D
#   git archive 559c953 src include | gzip > $D/old-tree.tar.gz
#   git archive s24-ostage-prep src include | gzip > $D/new-tree.tar.gz
#   all-tree.tar.gz: new-tree's files with kWidestStagedOutputWidth = 256 (NOTES.md)
# Run:
#   run(command="bash bench/results/sm90-s24-ostage-prep/call.sh",
#       carry=["build-s24-ostage", ".deps"], timeout_s=600)
# Packed dims only, so cuDNN refuses every point ("cudnn failed" lines, nan columns):
# bench/sm90_vs_cudnn.py's summary no longer divides by zero there (s23 call 3's
# ZeroDivisionError came from no finite cuDNN ratio, not from --no-flash itself).
source scripts/gpu-env.sh 2>/dev/null
T=build-s24-ostage
TESTS_DEADLINE_S=590
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
# The tests' tree: this checkout with the all tree's src and include (every width stages, so
# every bucket's staging runs in StagedOutput), built in the background while the bench runs.
mkdir -p /tmp/repo-all && tar cf - --exclude='./build*' --exclude='./gpu-check-out' . |
  tar xf - -C /tmp/repo-all && tar xzf $T/all-tree.tar.gz -C /tmp/repo-all || exit 1
checks=(--families sm90 --dtypes "fp16;bf16" --no-bench --filter '*Sm90Unaligned*')
mkdir -p "$OUT/gc"
( OUT=$OUT/gc nice -n 19 /tmp/repo-all/scripts/gpu-check "${checks[@]}" --no-tests \
    --no-sanitizers --jobs 12 > "$OUT/gc-build.txt" 2>&1 ) &
build_pid=$!
libs=(--lib all=/tmp/sh-all/libsm90shim.so --lib tab=/tmp/sh-new/libsm90shim.so
      --lib old=/tmp/sh-old/libsm90shim.so)
# 74 / 90: 128 bucket (widths 80 / 96: never staged, controls, the same kernels in all three
# shims); 129: 192 bucket (width 144, staged in all and tab);
# 201 / 234: 256 bucket (widths 208 / 240; 240 staged in all only). B = 16, H = 16: token
# strides of 32·D bytes, the 16-byte multiples heads as columns needs.
timeout 240 python3 bench/sm90_vs_cudnn.py "${libs[@]}" --bench --dims 74,90,129,201,234 \
  --seqlens 2048 --dtype fp16 --shape 16,16 --causal 0,1 --rounds 6 --same-outputs --no-flash \
  --json "$OUT/fp16.json" 2>&1 | grep -v -e Warning -e "cudnn failed" | tee "$OUT/fp16.txt"
echo "== $(date +%T) (at $SECONDS s) bench rc ${PIPESTATUS[0]}"
wait "$build_pid"
tail -3 "$OUT/gc-build.txt"
OUT=$OUT/gc timeout $((TESTS_DEADLINE_S - SECONDS)) /tmp/repo-all/scripts/gpu-check \
  "${checks[@]}" --bundle 2>&1 | tail -14
(cd "$OUT" && tar czf rest.tgz --remove-files $(ls | grep -v -e '^fp16.txt$' -e '^rest.tgz$'))
