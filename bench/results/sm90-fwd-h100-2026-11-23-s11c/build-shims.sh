#!/bin/bash
# Builds the carry of call-command.sh, build-h11c/carry/shims.tar.xz: bench/sm90_timeline_shim.cu
# without the timeline (bf16 D = 64 / 128 / 256 instances, as h11-fwd90b's call 2) from three
# source trees under build-h11c/trees: cur = `git archive <commit>` (default HEAD), m and r3 = the
# same with candidate-m.patch / candidate-r3.patch applied. ptxas reports in
# build-h11c/shims/<name>/ptxas.log (compare them: the candidates change host code only).
#   bash bench/results/sm90-fwd-h100-2026-11-23-s11c/build-shims.sh [commit] [jobs (default 2)]
# (The steps are bench/sm90_candidates_build.sh's, with this folder's candidates.)
set -euo pipefail
cd "$(dirname "$0")/../../.."
exec bash bench/sm90_candidates_build.sh bench/results/sm90-fwd-h100-2026-11-23-s11c build-h11c \
  "${1:-HEAD}" "${2:-2}" m r3
