#!/usr/bin/env bash
# Builds the two shims of bench/sm80_bwd_timeline.py from bench/sm80_bwd_timeline_shim.cu and the
# sm80 backward's D = 64, 128 and 256 bf16 instances (SM80_TIMELINE_ONLY_64=1: D = 64 only):
# <dir>/timeline/libsm80bwdtimeline.so with FATTN_SM80_BWD_TIMELINE (the main kernel stamps its
# phases, src/cuda/sm80/backward_timeline.cuh)
# and <dir>/plain/libsm80bwdtimeline.so without it (the library's kernels, timed beside it for
# the recording's overhead). ptxas reports in each folder's ptxas.log. SM80_SOURCE_ROOT (default:
# this checkout) points at another tree's src/ and include/; SM80_NVCC_FLAGS adds nvcc flags.
# SM80_SHIMS=plain builds only the plain shim (a candidate's A/B needs no timeline; its ptxas
# report is the spill check), =timeline only the instrumented one; default both, plain first.
#   [SM80_SOURCE_ROOT=<tree>] [SM80_TIMELINE_ONLY_64=1 | SM80_TIMELINE_AHEAD_ONLY=1] [SM80_SHIMS=plain|timeline|both]
#     bench/sm80_bwd_timeline_build.sh <dir> [arch (default 90a)] [jobs]
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: bench/sm80_bwd_timeline_build.sh <dir> [arch] [jobs]}"
arch="${2:-90a}"
jobs="${3:-$(nproc)}"
root="${SM80_SOURCE_ROOT:-$PWD}"
source bench/shim_build_common.sh
flags=(-std=c++20 -O3 -lineinfo "-I$root/src" "-I$root/include" -Ibench --expt-relaxed-constexpr
       -Xcompiler -fPIC "-gencode=arch=compute_${arch},code=sm_${arch}" -Xptxas -v
       ${SM80_NVCC_FLAGS:-})
sources=("$root/src/cuda/instantiations/sm80_bwd_d64_bf16.cu"
         "$root/src/cuda/instantiations/sm80_bwd_d128_bf16.cu"
         "$root/src/cuda/instantiations/sm80_bwd_d256_bf16.cu" bench/sm80_bwd_timeline_shim.cu)
if [ "${SM80_TIMELINE_ONLY_64:-0}" = 1 ]; then
  # The D = 64 table alone (the shim instantiates it itself): a minute instead of several.
  flags+=(-DFATTN_SM80_BWD_TIMELINE_ONLY_64)
  sources=(bench/sm80_bwd_timeline_shim.cu)
fi
if [ "${SM80_TIMELINE_AHEAD_ONLY:-0}" = 1 ]; then
  # The tables and variants 301-303, 311-312 (the shim instantiates the tables itself).
  flags+=(-DFATTN_SM80_BWD_TIMELINE_AHEAD_ONLY)
  sources=(bench/sm80_bwd_timeline_shim.cu)
fi
shims="${SM80_SHIMS:-both}"
if [ "$shims" != timeline ]; then
  build_shim "$out/plain" "$jobs" libsm80bwdtimeline.so "${flags[*]}" "${sources[@]}"
fi
if [ "$shims" != plain ]; then
  build_shim "$out/timeline" "$jobs" libsm80bwdtimeline.so \
    "${flags[*]} -DFATTN_SM80_BWD_TIMELINE" "${sources[@]}"
fi
