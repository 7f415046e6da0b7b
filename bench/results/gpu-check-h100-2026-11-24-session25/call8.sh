#!/bin/bash
# s25 call 8: (1) the sm80 backward's class-kernel D-independent work (desk work s25-bwdnarrow:
# dQ slices past the class unsent, chunk-tested last slice, class-only tile copies; 256 dQ-only
# classes 13 / 14) in turns beside main 221b474 and FA2; (2) the Hopper forward with every
# causal launch on one-pair groups ("all1", a sed of main's forward.cuh) beside main, where
# call 7 found causal 16k at 0.48-0.87x cuDNN (D = 144 / 160 / 240, packed 105 / 129 / 161 / 234).
source scripts/gpu-env.sh 2>/dev/null
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
mkdir -p /tmp/all1 && cp -r src include /tmp/all1/
sed -i 's/const bool sector_causal = sector_boxes \&\& args.mask.kind == MaskKind::causal;/const bool sector_causal = args.mask.kind == MaskKind::causal;/' /tmp/all1/src/cuda/sm90/forward.cuh
grep -c "const bool sector_causal = args.mask.kind == MaskKind::causal;" /tmp/all1/src/cuda/sm90/forward.cuh
(bench/sm90_build.sh /tmp/bcur 8 > $OUT/b-cur.log 2>&1; SM90_SOURCE_ROOT=/tmp/all1 bench/sm90_build.sh /tmp/ball1 8 > $OUT/b-all1.log 2>&1; tail -1 $OUT/b-all1.log) &
SHIMS=$!
for v in old new newS newSC newSP old256 new256; do xz -dc build-s25-bn/$v.so.xz > /tmp/$v.so; done
P='80,2048,0,16,16,fp16;72,2048,0,16,16,fp16;96,2048,0,16,16,fp16;80,2048,1,16,16,fp16;128,2048,0,16,16,fp16'
timeout 100 python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 3 --points "$P" 2>&1 | grep -v Warning > $OUT/bn_new.txt; grep "^D=" $OUT/bn_new.txt | cut -c1-210
timeout 60 python3 bench/sm80_bwd_turns.py --old /tmp/newS.so --new /tmp/newSP.so --runs 2 --points '80,2048,0,16,16,fp16;72,2048,0,16,16,fp16;96,2048,0,16,16,fp16' 2>&1 | grep -v Warning > $OUT/bn_S_SP.txt; grep "^D=" $OUT/bn_S_SP.txt | cut -c1-210
timeout 60 python3 bench/sm80_bwd_turns.py --old /tmp/newSP.so --new /tmp/new.so --runs 2 --points '80,2048,0,16,16,fp16;72,2048,0,16,16,fp16' 2>&1 | grep -v Warning > $OUT/bn_SP_new.txt; grep "^D=" $OUT/bn_SP_new.txt | cut -c1-210
timeout 80 python3 bench/sm80_bwd_turns.py --old /tmp/old.so --new /tmp/new.so --runs 2 --deterministic --points '80,2048,0,16,16,fp16;72,2048,0,16,16,fp16;96,2048,0,16,16,fp16;128,2048,0,16,16,fp16' 2>&1 | grep -v Warning > $OUT/bn_det.txt; grep "^D=" $OUT/bn_det.txt | cut -c1-210
timeout 90 python3 bench/sm80_bwd_turns.py --old /tmp/old256.so --new /tmp/new256.so --runs 3 --points '200,2048,0,16,16,fp16;216,2048,0,16,16,fp16;200,2048,1,16,16,fp16;256,2048,0,16,16,fp16' 2>&1 | grep -v Warning > $OUT/bn_256.txt; grep "^D=" $OUT/bn_256.txt | cut -c1-210
echo "== sm80 done at $SECONDS s"
wait $SHIMS
echo "spills: $(cat /tmp/bcur/ptxas.log /tmp/ball1/ptxas.log | grep -cE '[1-9][0-9]* bytes spill')"
L=(--lib cur=/tmp/bcur/libsm90shim.so --lib all1=/tmp/ball1/libsm90shim.so)
timeout 150 python3 bench/sm90_vs_cudnn.py "${L[@]}" --bench --same-outputs --no-flash --rounds 5 \
  --points '64,16384,1;128,16384,1;256,16384,1;128,4096,1;256,4096,1;128,1024,1;256,2048,1;64,4096,1' \
  --json "$OUT/all1_sweep.json" 2>&1 | grep -v -e Warning -e "cudnn failed" -e "F.scaled" | tail -11
timeout 150 python3 bench/sm90_vs_cudnn.py "${L[@]}" --bench --same-outputs --no-flash --rounds 5 \
  --layout bshd --shape 4,16 --dtype bf16 \
  --points '144,16384,1;160,16384,1;240,16384,1;192,16384,1;129,16384,1;234,16384,1;144,4096,1;240,4096,1;80,16384,1' \
  --json "$OUT/all1_odd.json" 2>&1 | grep -v -e Warning -e "cudnn failed" -e "F.scaled" | tail -12
