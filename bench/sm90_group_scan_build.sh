#!/usr/bin/env bash
# Builds the Hopper forward shim (bench/sm90_shim.cu) from a copy of this checkout's src/ and
# include/ in which the scheduler's group size (params.heads_per_group, src/cuda/sm90/forward.cuh)
# can be overridden at run time through `fattn_bench_set_heads_per_group(int)` (0 = the library's
# rule), for bench/sm90_group_scan.py. The library itself has no such knob: the patch lives only in
# the copy under <dir>/tree.
#   bench/sm90_group_scan_build.sh <dir> [jobs (default nproc)]
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: bench/sm90_group_scan_build.sh <dir> [jobs]}"
jobs="${2:-$(nproc)}"
mkdir -p "$out/tree"
rm -rf "$out/tree/src" "$out/tree/include"
cp -r src include "$out/tree/"
python3 - "$out/tree/src/cuda/sm90/forward.cuh" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
anchor = "  params.heads_per_group =\n"
assert text.count(anchor) == 1, "forward.cuh: the heads_per_group assignment moved"
text = text.replace(anchor, anchor + "      fattn_bench_heads_per_group_override > 0 ? fattn_bench_heads_per_group_override :\n")
first_namespace = text.index("namespace fattn::detail::sm90 {")
text = text[:first_namespace] + "extern int fattn_bench_heads_per_group_override;\n" + text[first_namespace:]
open(path, "w").write(text)
PY
cat > "$out/group_override.cu" <<'CU'
int fattn_bench_heads_per_group_override = 0;
extern "C" void fattn_bench_set_heads_per_group(int pairs) { fattn_bench_heads_per_group_override = pairs; }
CU
SM90_SOURCE_ROOT="$out/tree" EXTRA_SOURCES="$out/group_override.cu" bash bench/sm90_build.sh "$out" "$jobs"
