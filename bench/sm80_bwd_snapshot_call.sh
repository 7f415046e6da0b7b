#!/bin/bash
# The sm80 backward candidate call of the thirteenth session's helpers (h13-bwd80, -80b, -80c),
# one preset per results folder, and their local compile checks. Run from the repository root.
#
#   bash bench/sm80_bwd_snapshot_call.sh PRESET [LIMIT] [STEPS]     (on the device)
#   bash bench/sm80_bwd_snapshot_call.sh check s13 [PARALLEL]        (here: ptxas -v + objects)
#   bash bench/sm80_bwd_snapshot_call.sh check s13b|s13c ROOT OUTDIR D TYPE ARCH
#
# The call, within LIMIT seconds (each step capped by the time left; carry .deps, GoogleTest):
#  build     the plain shim (SM80_SHIMS=plain bench/sm80_bwd_timeline_build.sh, sm_90a) and, with
#            a timeline preset, the timeline shim, in the background; the candidate library (the
#            source with the folder's cand-table.patch: fattn_cuda_tests, sm80 family, sm_90a,
#            head dims 64;128;256). The source is the working tree (s13: copied without
#            bench/results, build-* and .git) or a snapshot carried as build-<helper>/carry/
#            src.tar.xz (s13b, s13c: `git archive` of one commit, so that other helpers'
#            uncommitted files do not enter the builds).
#  ab        bench/sm80_bwd_det_ratio.py --variant V in turns beside the table and FA2 (2 rounds).
#  tests     the sm80 backward GoogleTests on the candidate library, then compute-sanitizer
#            (memcheck / racecheck) on the preset's cases; s13 then times its information variant.
#  timeline  bench/sm80_bwd_timeline.py of the table and of V at 4k causal (copy issue per step).
# Presets (the folder bench/results/sm80-bwd-h100-2026-11-23-PRESET holds cand-table.patch):
#  s13   v26 options (StaggeredDqReductions at 256, SpreadReductionsWholeTiles at 64): variants
#        261 (256) and 262 (64), default mode only, then 263 (128, information); tree source.
#  s13b  v27 MaskedStridedItemLoads on both 256 tables: variant 271; snapshot of e3b348b.
#  s13c  v28 MaskedItemSourcesInSharedMemory on both 256 tables: variant 281; snapshot of 4384845.
# Results: $OUT/summary.txt and $OUT/results.tgz (/tmp/results: logs, JSON, timelines).

check_one() {  # ROOT OUTDIR TAG D TYPE ARCH EXTRA_FLAGS...: one instantiation's object + ptxas -v
  local root=$1 out=$2 tag=$3 d=$4 t=$5 a=$6; shift 6
  mkdir -p "$out"
  nvcc -std=c++20 -O3 "$@" -I"$root/src" -I"$root/include" --expt-relaxed-constexpr \
    -Xcompiler -fPIC -gencode=arch=compute_$a,code=sm_$a -Xptxas -v \
    -c "$root/src/cuda/instantiations/sm80_bwd_d${d}_${t}.cu" -o "$out/$tag${d}_${t}_$a.o" \
    > "$out/$tag${d}_${t}_$a.ptxas" 2>&1
}

if [ "$1" = check ]; then
  case $2 in
  s13)  # HEAD's worktree, this tree (bf16, sm_90a, for bench/sass_compare.py) and the candidate
        # tree (d64 / d256, bf16 + fp16, sm_90a + sm_80, for the spill check); PARALLEL jobs.
    cd /work/main || exit 1
    export -f check_one
    jobs=()
    for d in 64 128 256; do jobs+=("head $d bf16 90a" "tree $d bf16 90a"); done
    for d in 64 256; do for t in bf16 fp16; do jobs+=("cand $d $t 90a" "cand $d $t 80"); done; done
    printf '%s\n' "${jobs[@]}" | xargs -P "${3:-2}" -L 1 bash -c '
      case $0 in head) root=build-h13bwd80/head;; cand) root=build-h13bwd80/cand;; *) root=.;; esac
      check_one $root build-h13bwd80/chk "$0_d" $1 $2 $3 -lineinfo; echo "$0 d$1 $2 sm_$3 rc $?"'
    ;;
  s13b|s13c)  # ROOT OUTDIR D TYPE ARCH: one instantiation; then the folder's sasspair.py / segs.py.
    check_one "$3" "$4" d "$5" "$6" "$7" -I"$3/bench"
    echo "rc $? $4 d$5 $6 sm_$7"
    grep -o '[0-9]* bytes spill stores' "$4/d${5}_${6}_$7.ptxas" | sort | uniq -c
    ;;
  *) echo "check: preset s13, s13b or s13c" >&2; exit 2;;
  esac
  exit
fi

set -o pipefail
PRESET=$1
HERE=$PWD/bench/results/sm80-bwd-h100-2026-11-23-$PRESET
case $PRESET in
s13)
  LIMIT=${2:-440}; STEPS=${3:-build ab tests}
  SNAPSHOT=; SHIMS=plain; NINJA_JOBS=12
  AB=("261|256,512,1;256,1024,1;256,4096,0;256,4096,1;256,16384,0|90"
      "262|64,512,1;64,1024,1;64,4096,0;64,4096,1;64,16384,0|80")
  AB_LATE=("263|128,1024,1;128,4096,0;128,4096,1|45")  # the 128 stagger: information only
  AB_FLAGS=--default-only; AB_GREP='^D '
  TESTS_CAP=120; TESTS_GREP='^\[  (PASSED|FAILED|SKIPPED) |tests? ran|FAILED  \]'
  SANITIZE=('memcheck *Sm80Backward*negative_scale_causal_d256*'
            'racecheck *Sm80Backward*negative_scale_causal_d256*'
            'memcheck *Sm80Backward*nomask_gqa_d64*' 'racecheck *Sm80Backward*nomask_gqa_d64*')
  SANITIZE_CAP=32; TIMELINE=;;
s13b|s13c)
  V=$([ "$PRESET" = s13b ] && echo 271 || echo 281)
  LIMIT=${2:-$([ "$PRESET" = s13b ] && echo 360 || echo 350)}; STEPS=${3:-build ab tests timeline}
  SNAPSHOT=build-h13bwd80${PRESET#s13}/carry/src.tar.xz; SHIMS="plain timeline"; NINJA_JOBS=8
  AB=("$V|256,512,1;256,1024,1;256,4096,1;256,16384,1;256,4096,0|90"); AB_LATE=()
  AB_FLAGS=; AB_GREP="^D |variant $V"
  TESTS_CAP=170; TESTS_GREP='^\[  PASSED  \] [0-9]|^\[  FAILED  \]|^\[  SKIPPED \] [0-9]|tests? ran'
  SANITIZE=('memcheck *Sm80Backward*strided_window_d256*'
            'racecheck *Sm80Backward*strided_window_d256*')
  if [ "$PRESET" = s13b ]; then  # the strided masked path twice
    SANITIZE+=('memcheck *Sm80Backward*range_search_causal_d256*'
               'racecheck *Sm80Backward*range_search_causal_d256*')
  else                           # and the fallback copies
    SANITIZE+=('memcheck *Sm80Backward*range_search_causal_d256*'
               'racecheck *Sm80Backward*negative_scale_causal_d256*')
  fi
  SANITIZE_CAP=35; TIMELINE="0 $V";;
*) sed -n '2,/^# Results/p' "$0" >&2; exit 2;;
esac

left() { echo $(( LIMIT - SECONDS - 5 )); }
cap() { local l; l=$(left); [ "$1" -lt "$l" ] && echo "$1" || echo "$l"; }
source scripts/gpu-env.sh
export PYTHONUNBUFFERED=1
R=/tmp/results; mkdir -p $R /tmp/c; S=$OUT/summary.txt
pack() { tar -C /tmp -czf $OUT/results.tgz results; }
PLAIN=/tmp/c/plain/libsm80bwdtimeline.so
SRC=.
[ -n "$SNAPSHOT" ] && SRC=/tmp/snap
shim_log() { [ "$SHIMS" = plain ] && echo shim-build || echo shim-$1; }
shim_label() { [ "$SHIMS" = plain ] && echo shim || echo "$1 shim"; }
declare -A SHIM_PID
start_shims() {
  local s
  for s in $SHIMS; do
    (cd $SRC && SM80_SHIMS=$s bench/sm80_bwd_timeline_build.sh /tmp/c 90a 4) \
      > "$R/$(shim_log $s).log" 2>&1 &
    SHIM_PID[$s]=$!
  done
}
wait_shim() { local rc; wait ${SHIM_PID[$1]}; rc=$?; echo "$(shim_label $1) build rc $rc (at $SECONDS s)" | tee -a $S; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee -a $S

if [[ $STEPS == *build* ]]; then
  if [ -n "$SNAPSHOT" ]; then
    mkdir -p /tmp/snap && tar -C /tmp/snap -xJf $SNAPSHOT
    cp -r /tmp/snap /tmp/cand && (cd /tmp/cand && patch -p1 < "$HERE/cand-table.patch") \
      > $R/lib-build.log 2>&1
    start_shims
  else  # the shim builds read the tree itself; the library builds a patched copy
    start_shims
    mkdir -p /tmp/cand
    tar -cf - --exclude=./bench/results --exclude='./build-*' --exclude=./.git . | tar -C /tmp/cand -xf -
    (cd /tmp/cand && patch -p1 < "$HERE/cand-table.patch") > $R/lib-build.log 2>&1
  fi
  (cmake -S /tmp/cand -B /tmp/libbuild -G Ninja -DFATTN_CUDA=ON -DFATTN_CUDA_FAMILIES=sm80 \
     -DFATTN_CUDA_ARCHS=90a -DFATTN_CUDA_HEAD_DIMS="64;128;256" -DFATTN_BUILD_TOOLS=OFF \
     -DCMAKE_BUILD_TYPE=Release && ninja -C /tmp/libbuild -j$NINJA_JOBS fattn_cuda_tests) \
    >> $R/lib-build.log 2>&1
  echo "lib build rc $? (at $SECONDS s)" | tee -a $S
  mkdir -p /tmp/c/lib && cp /tmp/libbuild/tests/cuda/fattn_cuda_tests /tmp/c/lib/ && \
    cp -L /tmp/libbuild/src/libfattn.so.0 /tmp/c/lib/
  wait_shim plain
  grep -E ' s$|spill' "$R/$(shim_log plain).log" | grep -v ' 0 bytes spill stores, 0 bytes spill loads' \
    | tail -8 | tee -a $S
  pack
fi

ab() {  # "variant|points|seconds"
  local v p sec t
  IFS='|' read -r v p sec <<< "$1"
  t=$(cap $sec); [ "$t" -lt 15 ] && { echo "ab v$v skipped ($t s left)" | tee -a $S; return; }
  (cd $SRC && timeout $t python3 bench/sm80_bwd_det_ratio.py --plain $PLAIN --reps 6 $AB_FLAGS \
     --variant $v --json $R/ab-v$v.json --points "$p") > $R/ab-v$v.log 2>&1
  echo "ab v$v rc $? (limit $t s, at $SECONDS s)" | tee -a $S
  grep -E "$AB_GREP" $R/ab-v$v.log | sed 's/; rel vs flash.*//' | tee -a $S
  pack
}
if [[ $STEPS == *ab* ]]; then for run in "${AB[@]}"; do ab "$run"; done; fi

if [[ $STEPS == *tests* ]]; then
  t=$(cap $TESTS_CAP)
  (cd /tmp/c/lib && LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH timeout $t ./fattn_cuda_tests \
     --gtest_filter='*cuda_sm80*:*Sm80Backward*') > $R/tests.log 2>&1
  echo "tests rc $? (limit $t s, at $SECONDS s)" | tee -a $S
  grep -E "$TESTS_GREP" $R/tests.log | tee -a $S
  pack
  for run in "${SANITIZE[@]}"; do
    tool=${run%% *}; case=${run#* }
    t=$(cap $SANITIZE_CAP); [ "$t" -lt 10 ] && { echo "$tool $case skipped ($t s left)" | tee -a $S; continue; }
    log=$R/$tool-$(echo "$case" | tr -c 'a-zA-Z0-9_\n' '_').log
    (cd /tmp/c/lib && LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH timeout $t compute-sanitizer \
       --tool $tool ./fattn_cuda_tests --gtest_filter="$case") > $log 2>&1
    echo "$tool $case rc $? (limit $t s, at $SECONDS s)" | tee -a $S
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $log | tail -3 | tee -a $S
    pack
  done
fi
if [[ $STEPS == *ab* ]]; then for run in "${AB_LATE[@]}"; do ab "$run"; done; fi

if [[ $STEPS == *timeline* && -n "$TIMELINE" ]]; then
  [[ $STEPS == *build* ]] && wait_shim timeline
  for v in $TIMELINE; do
    t=$(cap 35); [ "$t" -lt 15 ] && { echo "timeline v$v skipped ($t s left)" | tee -a $S; continue; }
    (cd $SRC && timeout $t python3 bench/sm80_bwd_timeline.py \
       --timeline /tmp/c/timeline/libsm80bwdtimeline.so --plain $PLAIN --out $R/tl$v \
       --variant $v --reps 4 --points "256,4096,1") > $R/tl$v.log 2>&1
    echo "timeline v$v rc $? (limit $t s, at $SECONDS s)" | tee -a $S
    pack
  done
fi
