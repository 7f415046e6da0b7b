#!/bin/bash
# compare all before/after objects with today's tile names renamed
R=()
for d in 32 64 128; do R+=(--rename "fattn::detail::simt::ForwardTiles<$d, 2, 4, 4>=$d" --rename "fattn::detail::simt::KeyTiles<$d, 2, 4, 2>=$d" --rename "fattn::detail::simt::QueryTiles<$d, 2, 4, 4>=$d"); done
R+=(--rename "fattn::detail::simt::ForwardTiles<256, 2, 4, 2>=256" --rename "fattn::detail::simt::KeyTiles<256, 2, 2, 2>=256" --rename "fattn::detail::simt::QueryTiles<256, 2, 2, 2>=256")
export PATH=$PATH:/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/nvidia/cu13/bin
for o in /tmp/s29-simt-after/*.o; do b=/tmp/s29-simt-before/$(basename $o); echo "== $(basename $o)"; python3 /work/wt-s29-simtsmall/bench/sass_compare.py $b $o "${R[@]}" --width 120; done
