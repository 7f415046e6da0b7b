#!/usr/bin/env python3
"""h17-n512: correctness of each --lib (build.sh's bf16 D = 64 / 128 / 256 timing shims) against
the fp32 reference of bench/sm90_vs_cudnn.py (bottom-right-aligned masks; fully masked rows give
0 and LSE -inf). The candidates change the causal kernels' producer in small-N launches (at most
8 query tiles per pair: one-pair groups, both key walks over several rounds), so most cases are
causal launches of more tiles than an H100 has SMs: Nq = Nk, Nq > Nk (fully masked rows),
Nq < Nk, GQA, ragged N, one-step tiles, the 128 / 256 buckets' narrower widths (D = 96 / 120 /
240), padded rows, BHSD strides; then a 2k causal launch (the prefetch off at run time), and
kernels not changed: sector boxes (D = 200), a window, non-causal, D = 64.
  python3 check_n512.py --lib NAME=path.so [--lib ...] [--small] [--json out.json]"""
import os
import sys

sys.path.insert(0, "bench")
import sm90_check_cases  # noqa: E402

CASES = [
    # dtype, B, Nq, Nk, Hq, Hkv, D, causal, left, right, layout
    ("bf16", 8, 512, 512, 16, 16, 128, True, -1, -1, "bshd"),     # 0: 512 tiles, 4 rounds
    ("bf16", 4, 1024, 1024, 8, 2, 128, True, -1, -1, "bshd"),     # 1: GQA 4, 8-step tiles
    ("bf16", 4, 512, 512, 16, 4, 256, True, -1, -1, "bshd"),      # 2: GQA 4, 7-step tiles
    ("bf16", 2, 1013, 1013, 12, 12, 256, True, -1, -1, "bshd"),   # 3: ragged, 192 tiles
    ("bf16", 2, 1013, 600, 12, 4, 128, True, -1, -1, "bshd"),     # 4: Nq > Nk, GQA 3
    ("bf16", 3, 600, 1013, 16, 4, 256, True, -1, -1, "bshd"),     # 5: Nq < Nk, GQA 4
    ("bf16", 2, 700, 1013, 12, 6, 200, True, -1, -1, "bshd"),     # 6: sector boxes (unchanged)
    ("bf16", 160, 17, 17, 1, 1, 128, True, -1, -1, "bshd"),       # 7: 160 one-step tiles
    ("bf16", 2, 900, 700, 8, 4, 96, True, -1, -1, "bhsd"),        # 8: width 96, BHSD
    ("bf16", 1, 1013, 600, 20, 4, 240, True, -1, -1, "pad"),      # 9: width 240, padded rows
    ("bf16", 2, 1000, 1000, 10, 5, 120, True, -1, -1, "bshd"),    # 10: width 120, GQA 2
    ("bf16", 2, 2048, 2048, 4, 4, 256, True, -1, -1, "bshd"),     # 11: 2k causal (prefetch off)
    ("bf16", 2, 1000, 1000, 12, 6, 128, False, 200, 30, "bshd"),  # 12: window (unchanged)
    ("bf16", 4, 512, 512, 16, 16, 128, False, -1, -1, "bshd"),    # 13: non-causal (unchanged)
    ("bf16", 4, 512, 512, 16, 16, 64, True, -1, -1, "bshd"),      # 14: D = 64 (unchanged)
    ("bf16", 1, 1013, 17, 4, 4, 256, True, -1, -1, "bshd"),       # 15: Nq >> Nk, one key tile
]
SMALL = [CASES[i] for i in (2, 4, 5)]  # memcheck: D = 256 GQA 4 (2 rounds), Nq > Nk, Nq < Nk

if __name__ == "__main__":
    sm90_check_cases.run(CASES, SMALL)
