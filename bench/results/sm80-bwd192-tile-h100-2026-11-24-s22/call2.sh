#!/bin/bash
# s22 call 2: v40 (d5059ff) against main before it (5babd6a) on the points call 1 lost (its
# D = 128 control had no shim bucket), both modes; then four config-only candidates on v40's tile
# against v40: a DqAtomicsInPhaseB, c DqProductBeforePhaseB, d ScoreStatisticsAhead with
# ScorePassesByQueryTile (one ahead), h StagedEpilogue. No GPU tests (nothing is taken here).
source scripts/gpu-env.sh 2>/dev/null
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
for v in a b c d h; do
  xz -dc build-s22$v/carry/new.so.xz > /tmp/new_$v.so || exit 1
  xz -dc build-s22$v/carry/old.so.xz > /tmp/old_$v.so || exit 1
done
f="16,16,fp16"
turns() {  # variant points seconds [flags]
  local v=$1 points=$2 seconds=$3; shift 3
  timeout "$seconds" python3 bench/sm80_bwd_turns.py --old /tmp/old_$v.so --new /tmp/new_$v.so \
    --runs 3 --points "$points" "$@" 2>&1 | grep -v Warning | tee -a "$OUT/turns_$v.txt"
  echo "== $(date +%T) (at $SECONDS s) variant $v $* done"
}
turns b "192,2048,1,$f;144,2048,1,$f;129,2048,1,$f;192,2048,0,16,16,bf16;192,8192,0,4,16,fp16;192,1024,1,32,16,fp16;192,512,1,64,16,fp16" 120
turns b "192,2048,0,$f;192,2048,1,$f" 60 --deterministic
cand="192,2048,0,$f;192,2048,1,$f;144,2048,0,$f;192,512,1,64,16,fp16;192,8192,0,4,16,fp16"
for v in a c d h; do turns $v "$cand" 90; done
turns a "192,2048,0,$f;192,2048,1,$f" 60 --deterministic
turns c "192,2048,0,$f;192,2048,1,$f" 60 --deterministic
