#!/bin/bash
# usage: gaps.sh FILE.sass : for the key loop (from the 2nd HGMMA block of 16 to the next BAR.SYNC), the opcode
# sequence compressed: F=FFMA M=MUFU.EX2 A=FADD X=FMNMX W=DEPBAR P=F2FP U=FMUL S=SHFL .=other; and counts.
awk '{n=$0; sub(/;.*/,"",n); gsub(/^ +/,"",n); if(n=="" || n ~ /^\/\*/) next; split(n,a," "); op=a[1]; if(op ~ /^@/) op=a[2]; print op}' $1 > /tmp/ops.$$
awk 'BEGIN{h=0} /^HGMMA/{h++} h>=17 && !done {print} /^BAR.SYNC/ && h>=17 {done=1}' /tmp/ops.$$ > /tmp/loop.$$
echo "loop instructions: $(wc -l < /tmp/loop.$$)  MUFU $(grep -c '^MUFU.EX2' /tmp/loop.$$)  FFMA $(grep -c '^FFMA' /tmp/loop.$$)  FADD $(grep -c '^FADD' /tmp/loop.$$)  FMNMX $(grep -c '^FMNMX' /tmp/loop.$$)  FMUL $(grep -c '^FMUL' /tmp/loop.$$)  F2FP $(grep -c '^F2FP' /tmp/loop.$$) HGMMA $(grep -c '^HGMMA' /tmp/loop.$$)"
sed -E 's/^FFMA.*/F/; s/^MUFU.EX2.*/M/; s/^FADD.*/A/; s/^FMNMX.*/X/; s/^WARPGROUP.DEPBAR.*/W/; s/^F2FP.*/P/; s/^FMUL.*/U/; s/^SHFL.*/S/; s/^HGMMA.*/H/; s/^MEMBAR.*/B/; s/^BAR.*/R/; s/^[A-Z][A-Z0-9._]+$/./' /tmp/loop.$$ | tr -d '\n' | fold -w 120; echo
rm -f /tmp/ops.$$ /tmp/loop.$$
