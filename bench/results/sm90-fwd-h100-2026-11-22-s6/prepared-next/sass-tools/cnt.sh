#!/bin/bash
# usage: cnt.sh PREFIX [width] -> splits PREFIX.sass into PREFIX_n.sass (NoMask kernel) and
# PREFIX_c.sass (CausalMask kernel) and prints each kernel's run-length string of the key
# instructions (MUFU/DEPBAR/HGMMA/BAR/F2FP/VOTE/WARPSYNC/MEMBAR) from its first 16-HGMMA batch.
f=$1
awk '/Function :/{f=0} /Function :.*NoMask/{f=1} f' $f.sass > ${f}_n.sass
awk '/Function :/{f=0} /Function :.*CausalMask/{f=1} f' $f.sass > ${f}_c.sass
for k in n c; do echo "$f $k: $(awk '/MUFU.EX2|WARPGROUP.DEPBAR|HGMMA|BAR.SYNC|F2FP|VOTE|WARPSYNC|NANOSLEEP|MEMBAR/{n=$0; sub(/;.*/,"",n); gsub(/^ +/,"",n); split(n,a," "); op=a[1]; if(op ~ /^@/) op=a[2]; sub(/\..*/,"",op); if(op!=last){ if(last!="") printf "%s%d ", last, c; last=op; c=0}; c++} END{print last c}' ${f}_$k.sass | grep -o "HGMMA16.*" | cut -c1-${2:-110})"; done
