#!/usr/bin/env bash
# h13-bwd80b's compile checks (copied by h13-bwd80c) (here, 2 cores): ptxas -v and the object of one sm80 backward
# instantiation of a tree. usage: build-check.sh ROOT OUTDIR D TYPE ARCH
#   ROOT: HEAD's worktree (base), the tree with the option off (a1), or a copy with
#   cand-table.patch applied (f1); D 64/128/256, TYPE bf16/fp16, ARCH 90a/80.
# Then: python3 sasspair.py BASE.o NEW.o (every kernel, the wrapper taken out of the names) and
# python3 segs.py SASS KERNEL-REGEX (the loop top's copy path of one kernel).
root=$1; out=$2; d=$3; t=$4; a=$5
mkdir -p "$out"
nvcc -std=c++20 -O3 -I"$root/src" -I"$root/include" -I"$root/bench" --expt-relaxed-constexpr \
  -Xcompiler -fPIC -gencode=arch=compute_$a,code=sm_$a -Xptxas -v \
  -c "$root/src/cuda/instantiations/sm80_bwd_d${d}_${t}.cu" -o "$out/d${d}_${t}_$a.o" \
  > "$out/d${d}_${t}_$a.ptxas" 2>&1
echo "rc $? $out d$d $t sm_$a"
grep -o '[0-9]* bytes spill stores' "$out/d${d}_${t}_$a.ptxas" | sort | uniq -c
