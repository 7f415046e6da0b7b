#!/usr/bin/env bash
# Builds bench/sm90_shim.cu with the generated sm90 forward instances into <dir>/libsm90shim.so,
# for bench/sm90_vs_cudnn.py, without configuring the whole library. One nvcc per instance, in
# parallel; ptxas resource reports go to <dir>/ptxas.log. SM90_SOURCE_ROOT (default: this
# checkout) points at another tree's src/ and include/ (e.g. a `git archive` of an older commit),
# so that an old and a new kernel can be built side by side and timed in one device call.
# EXTRA_SOURCES (space-separated) adds sources to the shim (bench/sm90_group_scan_build.sh's hook).
#   [SM90_SOURCE_ROOT=<tree>] [EXTRA_SOURCES=...] bench/sm90_build.sh <dir> [jobs (default nproc)]
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: bench/sm90_build.sh <dir> [jobs]}"
jobs="${2:-$(nproc)}"
root="${SM90_SOURCE_ROOT:-$PWD}"
source bench/shim_build_common.sh
flags=(-std=c++20 -O3 -lineinfo "-I$root/src" "-I$root/include" -Ibench --expt-relaxed-constexpr
       -Xcompiler -fPIC "-gencode=arch=compute_90a,code=sm_90a" -Xptxas -v)
# types.cpp: size_of and TensorView::shape_string, which the launch code calls.
# Forward instances only: the shim has no backward entry point.
build_shim "$out" "$jobs" libsm90shim.so "${flags[*]}" "$root"/src/cuda/instantiations/sm90_fwd_*.cu \
  "$root/src/cuda/sm90/tensor_map.cu" "$root/src/api/types.cpp" bench/sm90_shim.cu ${EXTRA_SOURCES:-}
