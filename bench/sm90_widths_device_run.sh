#!/bin/bash
# One call on the GPU machine for the sm90 work widths (odd head dims, tile_config.hpp):
# library tests (fp64 reference, incl. the width cases), memcheck, the bench script's checks for
# the new shim, SASS of the bucket-width kernels old vs new (must be identical) and LDL/STL,
# then old vs new in one process, twice with the library order swapped: fp16 B=16 H=16 N=2048 at
# the odd head dims and the multiples of 64 (TARGETS.md: odd D vs the next multiple of 64), and
# the same with padded rows (32-byte-aligned strides) at a few D. cuDNN and flash are timed as
# peers. SM90_WIDTHS_SWEEP=1 adds part of the standard sweep (D = 64/128/256).
# Expects (carried) build-w90run/{fattn_cuda_tests,libfattn.so.0,new/libsm90shim.so,
# old/libsm90shim.so} and .deps. Logs go to $OUT as one tarball plus the bench tables.
set -o pipefail
source scripts/gpu-env.sh
R=build-w90run S=bench/sm90_vs_cudnn.py
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/$R:$LD_LIBRARY_PATH
LOGS=$(mktemp -d)
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 90 $R/fattn_cuda_tests --gtest_filter='*cuda_sm90*:*Sm90*' > $LOGS/gtest.log 2>&1
echo "gtest rc $?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|tests ran" $LOGS/gtest.log | head -20
timeout 60 compute-sanitizer --tool memcheck $R/fattn_cuda_tests \
  --gtest_filter='*cuda_sm90_small*:*width80_d65*:*width96*:*width256_d255*:*width240*:*width224_d224*' \
  > $LOGS/memcheck.log 2>&1
echo "memcheck rc $?: $(grep -E 'ERROR SUMMARY' $LOGS/memcheck.log | tail -1) $(grep -E '^\[  PASSED' $LOGS/memcheck.log)"
timeout 60 python3 $S --lib new=$R/new/libsm90shim.so --check > $LOGS/check.log 2>&1
echo "check rc $?: $(grep -E 'check:' $LOGS/check.log)"; grep FAIL $LOGS/check.log | head -5
# SASS per kernel: a bucket-width kernel (forward_kernel<B, B, ...>) must equal main's <B, ...>
# (matched by bucket, dtype and mask: the mangled names differ in more than the width).
for v in new old; do cuobjdump -sass $R/$v/libsm90shim.so > $LOGS/sass_$v.txt; done
echo "LDL/STL in new: $(grep -cE '\b(LDL|STL)\b' $LOGS/sass_new.txt)"
python3 - $LOGS <<'EOF'
import hashlib, re, sys
def kernels(path):
    out, name, body = {}, None, []
    for line in open(path):
        m = re.search(r"Function : (\S+)", line)
        if m:
            if name: out[name] = hashlib.md5("".join(body).encode()).hexdigest()
            name, body = m.group(1), []
        elif name and re.search(r"/\*[0-9a-f]{4}\*/", line):
            body.append(re.sub(r"/\*[0-9a-f]{4}\*/", "", line).split(";")[0] + "\n")
    if name: out[name] = hashlib.md5("".join(body).encode()).hexdigest()
    return out
def key(name):  # (bucket, width, dtype, mask); main's kernels have no width argument
    m = re.search(r"forward_kernelILi(\d+)E(?:Li(\d+)E)?(\d+__\w+?)NS0_(\d+\w+?Mask)E", name)
    return (m.group(1), m.group(2) or m.group(1), m.group(3), m.group(4))
new, old = ({key(n): h for n, h in kernels(f"{sys.argv[1]}/sass_{v}.txt").items()
             if "forward_kernel" in n} for v in ("new", "old"))
same = [k for k in old if new.get(k) == old[k]]
print(f"bucket-width kernels: {len(same)} of {len(old)} SASS-identical to main "
      f"(differ: {[k for k in old if k not in same]}); new has {len(new)} kernels")
EOF
odd="64,72,80,96,104,128,136,152,192,200,216,256"
for order in "new old" "old new"; do
  libs=""; for v in $order; do libs="$libs --lib $v=$R/$v/libsm90shim.so"; done
  tag=${order%% *}first
  timeout 100 python3 $S $libs --bench --dtype fp16 --shape 16,16 --seqlens 2048 --causal 0,1 \
    --dims $odd --json $LOGS/odd_$tag.json > $LOGS/odd_$tag.log 2>&1
  echo "odd dims ($order) rc $?"; grep -v "^D=" $LOGS/odd_$tag.log | grep -v "^|---"
done
timeout 60 python3 $S --lib new=$R/new/libsm90shim.so --lib old=$R/old/libsm90shim.so --bench \
  --dtype fp16 --shape 16,16 --seqlens 2048 --causal 0 --dims 72,80,136,200 --layout pad \
  --json $LOGS/pad.json > $LOGS/pad.log 2>&1
echo "padded rows rc $?"; grep -v "^D=" $LOGS/pad.log | grep -v "^|---"
if [ "${SM90_WIDTHS_SWEEP:-0}" = 1 ]; then
  timeout 100 python3 $S --lib new=$R/new/libsm90shim.so --lib old=$R/old/libsm90shim.so --bench \
    --dims 64,128,256 --seqlens 512,2048,16384 --json $LOGS/sweep.json > $LOGS/sweep.log 2>&1
  echo "sweep rc $?"; grep -v "^D=" $LOGS/sweep.log | grep -v "^|---"
fi
rm -f $LOGS/sass_*.txt
cp $LOGS/odd_*.log $LOGS/pad.log $OUT/ 2>/dev/null; cp $LOGS/sweep.log $OUT/ 2>/dev/null
tar czf $OUT/logs.tgz -C $LOGS .
