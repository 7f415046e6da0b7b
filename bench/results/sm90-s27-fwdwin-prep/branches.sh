#!/bin/bash
# branches.sh OBJ: per kernel: short name (mask, template flags), BSSY, BRA, instructions
export PATH=/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/nvidia/cu13/bin:$PATH
cuobjdump -sass "$1" | awk '
function flush() { if (name) printf "%-40s %4d %4d %6d\n", short, bssy, bra, n }
/Function :/ { flush(); name=$3; bssy=0; bra=0; n=0; short=name;
  sub(/^_ZN5fattn6detail4sm9014forward_kernelI/, "", short); sub(/EEEv14CUtensorMap.*/, "", short);
  gsub(/NS0_[0-9]+/, " ", short); gsub(/E13__nv_bfloat16/, " bf16", short); gsub(/E6__half/, " fp16", short); gsub(/ELb/, "", short); gsub(/ELi/, ",", short); sub(/^Li/, "", short); next }
/\/\*[0-9a-f]+\*\// { n++ ; if ($0 ~ /BSSY/) bssy++; if ($0 ~ / BRA[ .]/) bra++ }
END { flush() }'
