#!/usr/bin/env bash
# Builds the two shims of bench/sm90_timeline.py from bench/sm90_timeline_shim.cu and the sm90
# forward's D = 64, 128 and 256 bf16 instances: <dir>/timeline/libsm90timeline.so with
# FATTN_SM90_TIMELINE (the kernels record their phases, src/cuda/sm90/timeline.cuh) and
# <dir>/plain/libsm90timeline.so without it (the library's kernels, timed beside it for the
# recording's overhead). ptxas reports in each folder's ptxas.log. SM90_SOURCE_ROOT (default:
# this checkout) points at another tree's src/ and include/, e.g. a `git archive` with a variant
# patch applied (bench/results/sm90-timeline-h100-2026-11-22-s7/prepared-next/).
#   [SM90_SOURCE_ROOT=<tree>] bench/sm90_timeline_build.sh <dir> [jobs (default nproc)]
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: bench/sm90_timeline_build.sh <dir> [jobs]}"
jobs="${2:-$(nproc)}"
root="${SM90_SOURCE_ROOT:-$PWD}"
source bench/shim_build_common.sh
flags=(-std=c++20 -O3 -lineinfo "-I$root/src" "-I$root/include" -Ibench --expt-relaxed-constexpr
       -Xcompiler -fPIC "-gencode=arch=compute_90a,code=sm_90a" -Xptxas -v)
sources=("$root/src/cuda/instantiations/sm90_fwd_d256_bf16.cu"
         "$root/src/cuda/instantiations/sm90_fwd_d128_bf16.cu"
         "$root/src/cuda/instantiations/sm90_fwd_d64_bf16.cu"
         "$root/src/cuda/sm90/tensor_map.cu" "$root/src/api/types.cpp" bench/sm90_timeline_shim.cu)
build_shim "$out/timeline" "$jobs" libsm90timeline.so "${flags[*]} -DFATTN_SM90_TIMELINE" "${sources[@]}"
build_shim "$out/plain" "$jobs" libsm90timeline.so "${flags[*]}" "${sources[@]}"
