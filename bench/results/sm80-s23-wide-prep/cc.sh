#!/bin/bash
f=$1; o=$2; shift 2
/usr/local/cuda/bin/nvcc -DFATTN_HAS_CUDA=1 -DFATTN_HAS_SM80=1 -I/work/wt-s23-wide/include -I/work/wt-s23-wide/src -O3 -DNDEBUG -lineinfo --expt-relaxed-constexpr -std=c++20 -gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v "$@" -x cu -c $f -o $o 2>&1 | python3 /tmp/s23w/summ.py
