#!/usr/bin/env bash
# Builds the shim of bench/sm80_bwd_compare.py: bench/sm80_build.sh with the forward's variants
# replaced by bench/sm80_bwd_no_fwd_variants.cu (the comparisons run the table's forward only),
# which takes the slowest file out of the build. Same arguments and outputs as sm80_build.sh.
#   bench/sm80_bwd_build.sh <dir> [arch (default 90a)] [jobs (default nproc)]
set -euo pipefail
SM80_FWD_VARIANTS=bench/sm80_bwd_no_fwd_variants.cu exec "$(dirname "$0")/sm80_build.sh" "$@"
