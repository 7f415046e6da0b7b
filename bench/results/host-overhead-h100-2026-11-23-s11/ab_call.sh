#!/usr/bin/env bash
# The eleventh session's second device call: build the new package, then time it in turns
# against the tenth session's package (built from c478299 in the first call, carried as
# build-h11-host/base_pkg.tar.xz), then the Python tests and compare.py's small-N fwd+bwd
# points. The new package is built from c478299 with this session's Python files and bindings
# over it (build-h11-host/new_src.tar.gz), not from the shared working tree, so that other
# helpers' kernel work in progress is in neither build: the A/B differs in the host path only.
# Usage (GPU machine, repository root, carry .deps and build-h11-host):
#   source scripts/gpu-env.sh; bash bench/results/host-overhead-h100-2026-11-23-s11/ab_call.sh
# Few files come back from $OUT, so the timings of every turn go into one file (ab.md).
set -o pipefail
out=${OUT:?}
mkdir -p /tmp/base /tmp/res /tmp/newsrc
tar xJf build-h11-host/base_pkg.tar.xz -C /tmp/base
tar xzf build-h11-host/new_src.tar.gz -C /tmp/newsrc
(cd /tmp/newsrc && CMAKE_BUILD_PARALLEL_LEVEL=16 python3 -m pip install --no-build-isolation --no-deps \
  --target /tmp/new --config-settings=cmake.define.FATTN_CUDA_ARCHS=90a \
  "--config-settings=cmake.define.FATTN_CUDA_FAMILIES=sm80;sm90" \
  --config-settings=cmake.define.FATTN_CUDA_DTYPES=bf16 \
  "--config-settings=cmake.define.FATTN_CUDA_HEAD_DIMS=64;128;256" .) >"$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log"; exit 1; }

step() {  # package, then the command; appends to ab.md under a heading
  local package=$1; shift
  echo -e "\n## $package: $*\n" >>"$out/ab.md"
  PYTHONPATH=/tmp/$package "$@" 2>&1 | tee -a "$out/ab.md"
}
for package in base new; do step $package python3 bench/host_overhead.py --breakdown; done
for package in base new; do step $package python3 bench/host_overhead.py; done
PYTHONPATH=/tmp/new timeout 120 python3 -m pytest -q -rs tests/python 2>&1 | tail -40 >"$out/pytest.log"
tail -3 "$out/pytest.log"
for package in base new; do
  PYTHONPATH=/tmp/$package timeout 90 python3 bench/compare.py --quick --sections sweep \
    --seqlens 512,1024 --modes fwd+bwd --fattn-backends auto --sdpa-backends flash,cudnn \
    --out /tmp/res/smalln_$package >/tmp/res/compare_$package.log 2>&1
  cp /tmp/res/smalln_$package.md "$out/" 2>/dev/null || tail -5 /tmp/res/compare_$package.log
done
for package in base new; do step $package python3 bench/host_overhead.py --breakdown; done
PYTHONPATH=/tmp/new python3 bench/host_overhead.py --cprofile >"$out/cprofile_new.txt" 2>&1
ls -la "$out"
