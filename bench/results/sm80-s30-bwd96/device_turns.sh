#!/bin/bash
# s30-bwd96: old / new backward shims (bench/sm80_shim.cu, the 128 bucket's fp16 and bf16 sm80
# instances for sm_90a, the rest stubbed) and bench/sm80_bwd_turns.py on them beside FA2, as
# bench/sm80_old_new_build.sh does but with the old tree from a directory (a copy of the tree with
# candidate.patch reversed, or `git archive main src include`) instead of a commit. The shim
# also needs src/api/types.cpp and src/cuda/common/device_query.cpp (bench/sm80_old_new_build.sh
# lacks them: its shims fail to load, undefined fattn::detail::query_cuda_device and
# fattn::to_string(const Device&)).
#   bash bench/results/sm80-s30-bwd96/device_turns.sh <old tree with src/ include/> <out dir> \
#       [points] [jobs]
set -euo pipefail
cd "$(dirname "$0")/../../.."
OLD=$(cd "$1" && pwd)
mkdir -p "$2"
OUT=$(cd "$2" && pwd)
POINTS=${3:-"96,2048,0,16,16,fp16;96,2048,1,16,16,fp16;88,2048,0,16,16,fp16;88,2048,1,16,16,fp16;80,2048,0,16,16,fp16;80,2048,1,16,16,fp16;128,2048,0,16,16,fp16;96,2048,0,16,16,bf16;96,2048,1,16,16,bf16;88,2048,0,16,16,bf16"}
JOBS=${4:-8}
source bench/shim_build_common.sh
for v in old new; do
  if [ "$v" = old ]; then root=$OLD; else root=$(pwd); fi
  flags=(-std=c++20 -O3 -lineinfo "-I$root/src" "-I$root/include" -Ibench --expt-relaxed-constexpr
         -Xcompiler -fPIC -gencode=arch=compute_90a,code=sm_90a -Xptxas -v
         -DFATTN_STUB_FORWARD_VARIANTS -DFATTN_SHIM_BACKWARD_128)
  sources=(bench/sm80_shim.cu bench/sm80_forward_shim_stubs.cu "$root/src/api/types.cpp"
           "$root/src/cuda/common/device_query.cpp"
           "$root/src/cuda/instantiations/sm80_bwd_d128_fp16.cu"
           "$root/src/cuda/instantiations/sm80_bwd_d128_bf16.cu")
  build_shim "$OUT/$v" "$JOBS" "$v.so" "${flags[*]}" "${sources[@]}" > "$OUT/$v.build.log" 2>&1 &
done
wait
tail -3 "$OUT/old.build.log" "$OUT/new.build.log"
echo "spills: old $(grep -cE '[1-9][0-9]* bytes spill' "$OUT/old/ptxas.log" || true)," \
     "new $(grep -cE '[1-9][0-9]* bytes spill' "$OUT/new/ptxas.log" || true)"
python3 bench/sm80_bwd_turns.py --old "$OUT/old/old.so" --new "$OUT/new/new.so" \
  --points "$POINTS" --json "$OUT/turns.json" | tee "$OUT/turns.txt"
python3 bench/sm80_bwd_turns.py --old "$OUT/old/old.so" --new "$OUT/new/new.so" --deterministic \
  --points "96,2048,0,16,16,fp16;96,2048,1,16,16,fp16;88,2048,0,16,16,bf16" \
  --json "$OUT/turns_det.json" | tee "$OUT/turns_det.txt"
