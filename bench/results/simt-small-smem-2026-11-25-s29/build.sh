#!/bin/bash
# build.sh <srcroot> <outdir> <tu-list...>; serial, times each
root=$1; out=$2; shift 2
for tu in "$@"; do for a in 80 90a; do
  s=$(date +%s.%N); /tmp/s29/cc.sh src/cuda/instantiations/$tu.cu $a $out $root; e=$(date +%s.%N)
  echo "TIME $tu sm$a $(echo "$e - $s" | bc)"
done; done
