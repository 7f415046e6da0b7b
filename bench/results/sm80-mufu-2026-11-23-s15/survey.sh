#!/bin/bash
# survey.sh OUTDIR "TILE..." "ARCH..." [EXTRA nvcc flags]: one nvcc -cubin per (tile, arch)
export PATH=/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/nvidia/cu13/bin:$PATH
out=$1; tiles=$2; archs=$3; extra=${4:-}
mkdir -p $out
cd /work/h15-mufu
for t in $tiles; do for a in $archs; do
  n=$out/t${t}_sm${a}
  /usr/bin/time -f "%e s" nvcc -std=c++20 -O3 -Isrc -Iinclude --expt-relaxed-constexpr -DSURVEY_TILE=$t $extra \
    -gencode=arch=compute_${a},code=sm_${a} -Xptxas -v -cubin -o $n.cubin \
    bench/results/sm80-mufu-2026-11-23-s15/survey_kernels.cu > $n.log 2>&1 || echo "FAILED $n"
done; done
echo done > $out/DONE
