#!/usr/bin/env bash
# ptxas -v and objects of the sm80 backward instantiations (h13-bwd80): HEAD's (worktree
# build-h13bwd80/head) and this checkout's bf16 at sm_90a for bench/sass_compare.py (the tables
# unchanged: every kernel must be the same), and the candidate tree's (build-h13bwd80/cand: the
# tables with the v26 options) d64 / d256 bf16 + fp16 at sm_90a and sm_80 for the spill check.
set -uo pipefail
cd /work/main
out=build-h13bwd80/chk; mkdir -p $out
flags="-std=c++20 -O3 -lineinfo --expt-relaxed-constexpr -Xcompiler -fPIC -Xptxas -v"
jobs=()
for d in 64 128 256; do jobs+=("head $d bf16 90a" "tree $d bf16 90a"); done
for d in 64 256; do for t in bf16 fp16; do jobs+=("cand $d $t 90a" "cand $d $t 80"); done; done
printf '%s\n' "${jobs[@]}" | xargs -P "${1:-2}" -L 1 sh -c '
  case $0 in head) root=build-h13bwd80/head;; cand) root=build-h13bwd80/cand;; *) root=.;; esac
  nvcc '"$flags"' -I$root/src -I$root/include -gencode=arch=compute_$3,code=sm_$3 \
    -c $root/src/cuda/instantiations/sm80_bwd_d$1_$2.cu -o '"$out"'/$0_d$1_$2_$3.o \
    > '"$out"'/$0_d$1_$2_$3.ptxas 2>&1; echo "$0 d$1 $2 sm_$3 rc $?"'
