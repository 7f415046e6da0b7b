#!/bin/bash
# The old / new shims of a bench/sm80_fwd_turns.py or bench/sm80_bwd_turns.py --old/--new call:
# bench/sm80_shim.cu with the sm80 instances (fp16 and bf16, sm_90a) of one direction and the
# named head-dim buckets only, the rest stubbed (bench/sm80_forward_shim_stubs.cu). old =
# `git archive <commit>`, new = this checkout's src/ and include/. Leaves
# <build>/carry/{old,new}.so.xz for sm80_unpack_old_new (bench/sm80_call_steps.sh); ptxas reports
# in <build>/{old,new}/ptxas.log.
#   bash bench/sm80_old_new_build.sh <build dir> <old commit> "<bucket> ..." [jobs] [fwd|bwd]
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p "$1"
B=$(cd "$1" && pwd) commit=$2 buckets=($3) jobs=${4:-2} direction=${5:-fwd}
case "$direction" in
  fwd) macro=FATTN_SHIM_FORWARD ;;
  bwd) macro=FATTN_SHIM_BACKWARD ;;
  *) echo "direction: fwd or bwd, not '$direction'" >&2; exit 2 ;;
esac
source bench/shim_build_common.sh
rm -rf "$B/trees" "$B/old" "$B/new" && mkdir -p "$B/trees/old" "$B/trees/new" "$B/carry"
versions=(old new)
if [ "$commit" = . ]; then
  versions=(new)
else
  git archive "$commit" src include | tar -x -C "$B/trees/old"
fi
cp -r src include "$B/trees/new/"
for v in "${versions[@]}"; do
  root=$B/trees/$v
  flags=(-std=c++20 -O3 -lineinfo "-I$root/src" "-I$root/include" -Ibench --expt-relaxed-constexpr
         -Xcompiler -fPIC -gencode=arch=compute_90a,code=sm_90a -Xptxas -v
         -DFATTN_STUB_FORWARD_VARIANTS)
  # types.cpp (size_of, shape strings) and device_query.cpp (the cached per-block shared-memory
  # limit that the launchers read since the twenty-ninth session): the shim does not load without.
  sources=(bench/sm80_shim.cu bench/sm80_forward_shim_stubs.cu "$root/src/api/types.cpp"
           "$root/src/cuda/common/device_query.cpp")
  for bucket in "${buckets[@]}"; do
    flags+=("-D${macro}_$bucket")
    sources+=("$root/src/cuda/instantiations/sm80_${direction}_d${bucket}_fp16.cu"
              "$root/src/cuda/instantiations/sm80_${direction}_d${bucket}_bf16.cu")
  done
  build_shim "$B/$v" "$jobs" "$v.so" "${flags[*]}" "${sources[@]}"
  echo "$v: $(grep -cE '[1-9][0-9]* bytes spill' "$B/$v/ptxas.log" || true) kernels with spills"
  xz -6 -c "$B/$v/$v.so" > "$B/carry/$v.so.xz"
done
if [ "$commit" = . ]; then cp "$B/carry/new.so.xz" "$B/carry/old.so.xz"; fi
