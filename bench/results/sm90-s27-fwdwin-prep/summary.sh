#!/bin/bash
# summary.sh OLDDIR NEWDIR: per TU and mask, BSSY / BRA ranges over kernels, old -> new
for o in $1/*.o; do t=$(basename $o _sm90a.o); n=$2/$(basename $o)
  /tmp/s27/fwdwin-tools/branches.sh $o > /tmp/s27/fwdwin-tools/_o; /tmp/s27/fwdwin-tools/branches.sh $n > /tmp/s27/fwdwin-tools/_n
  paste /tmp/s27/fwdwin-tools/_o /tmp/s27/fwdwin-tools/_n | awk -v t=$t '
  { m = ($3 ~ /Window/) ? "Window" : ($3 ~ /Causal/) ? "Causal" : "NoMask";
    k[m]++; upd(m, "ob", $4); upd(m, "or", $5); upd(m, "nb", $10); upd(m, "nr", $11); oi[m]+=$6; ni[m]+=$12 }
  function upd(m, f, v) { if (!((m,f,"lo") in r) || v < r[m,f,"lo"]) r[m,f,"lo"]=v; if (!((m,f,"hi") in r) || v > r[m,f,"hi"]) r[m,f,"hi"]=v }
  function rg(m, f) { return r[m,f,"lo"] "-" r[m,f,"hi"] }
  END { split("NoMask Causal Window", ms, " "); for (i=1;i<=3;i++) { m=ms[i]; if (!k[m]) continue;
    printf "| %s | %s | %d | %s / %s | %s / %s | %d -> %d |\n", t, m, k[m], rg(m,"ob"), rg(m,"or"), rg(m,"nb"), rg(m,"nr"), oi[m]/k[m], ni[m]/k[m] } }'
done
