#!/bin/bash
# SASS of the 8 committed sm90 forward TUs: HEAD tree (/tmp/h6b-src) vs patched tree with every
# switch off (/tmp/h6b-var), compared without the 'identifier =' line (the source path).
for t in d64_bf16 d64_fp16 d128_bf16 d128_fp16 d192_bf16 d192_fp16 d256_bf16 d256_fp16; do
  for tree in src var; do
    [ $tree = src ] && [ -s /tmp/h6b/id_src_$t.sass ] && continue
    nice /tmp/sass2.sh /tmp/h6b-$tree src/cuda/instantiations/sm90_fwd_$t.cu /tmp/h6b/id_${tree}_$t.sass -gencode=arch=compute_90a,code=sm_90a > /dev/null
  done
  if cmp -s <(grep -v identifier /tmp/h6b/id_src_$t.sass) <(grep -v identifier /tmp/h6b/id_var_$t.sass); then
    echo "$t identical ($(wc -l < /tmp/h6b/id_src_$t.sass) lines)"; else echo "$t DIFFERS"; fi
done
