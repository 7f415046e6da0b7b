#!/bin/bash
# Builds the carry of call-command.sh, build-h11d/carry/shims.tar.xz: bench/sm90_timeline_shim.cu
# without the timeline (bf16 D = 64 / 128 / 256 instances, as h11-fwd90b/c's calls) from three
# source trees under build-h11d/trees: cur = `git archive <commit>` (default 134511b, the HEAD
# the candidates were written on), g33 and c128 = the same with candidate-<name>.patch applied.
# ptxas reports in build-h11d/shims/<name>/ptxas.log (the candidates change host code only).
#   bash bench/results/sm90-fwd-h100-2026-11-23-s11d/build-shims.sh [commit] [jobs (default 2)]
# (The steps are bench/sm90_candidates_build.sh's, with this folder's candidates.)
set -euo pipefail
cd "$(dirname "$0")/../../.."
exec bash bench/sm90_candidates_build.sh bench/results/sm90-fwd-h100-2026-11-23-s11d build-h11d \
  "${1:-134511b}" "${2:-2}" g33 c128
