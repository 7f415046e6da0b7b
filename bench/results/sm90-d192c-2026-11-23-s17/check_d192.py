#!/usr/bin/env python3
"""Correctness of the 192-bucket kernels of each --lib (build.sh's 192-bucket shims) against the fp32
reference of bench/sm90_vs_cudnn.py: every work width (144/160/176/192, the sector-box widths
for D = 136/152), both dtypes, causal / window / GQA / ragged / strided / padded layouts
(h16-d192's 15 cases), and (h17-d192c) small-N masked launches of more tiles than an H100 has
SMs, so that one-pair groups and both key walks (ascending in even rounds, descending in odd
ones: keys_ascending_even_rounds) run in one launch: causal Nq = Nk, Nq > Nk (fully masked
rows) and Nq < Nk, GQA, windows, ragged N, 1-step tiles, D = 136 (sector boxes) / 160 / 176 / 192.
  python3 check_d192.py --lib NAME=path.so [--lib ...] [--small] [--json out.json]"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, "bench")
import sm90_check_cases  # noqa: E402

# h16-d192's 15 cases (indices 0-14), then this folder's.
H16_CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                         "sm90-d192-2026-11-23-s16", "check_d192.py")
CASES = sm90_check_cases.cases_of(H16_CHECK) + [
    # h17-d192c: <= 8 query tiles per pair (one-pair groups) and > 132 tiles (two or more rounds).
    ("bf16", 4, 1024, 1024, 10, 10, 192, True, -1, -1, "bshd"),    # 15: 320 tiles, 3 rounds
    ("fp16", 2, 1013, 600, 12, 4, 192, True, -1, -1, "bshd"),      # 16: Nq > Nk, GQA 3, 192 tiles
    ("bf16", 3, 600, 1013, 16, 4, 160, True, -1, -1, "bshd"),      # 17: Nq < Nk, GQA 4, 240 tiles
    ("bf16", 2, 1024, 1024, 12, 12, 136, True, -1, -1, "bshd"),    # 18: sector boxes, 192 tiles
    ("fp16", 2, 1013, 1013, 10, 10, 176, True, -1, -1, "bshd"),    # 19: ragged keys, 160 tiles
    ("bf16", 2, 1000, 1000, 12, 6, 192, False, 200, 30, "bshd"),   # 20: window, GQA 2, 192 tiles
    ("fp16", 160, 17, 17, 1, 1, 192, True, -1, -1, "bshd"),        # 21: 160 one-step tiles
    ("bf16", 1, 512, 512, 40, 8, 192, True, -1, -1, "bshd"),       # 22: 160 tiles, GQA 5
    ("fp16", 1, 1013, 600, 20, 4, 144, True, -1, -1, "pad"),       # 23: Nq > Nk, padded rows
    ("fp16", 2, 512, 512, 40, 40, 192, False, -1, -1, "bshd"),     # 24: non-causal, 320 tiles
]
SMALL = [CASES[i] for i in (2, 4, 5, 7, 8, 11, 21, 22, 23)]

if __name__ == "__main__":
    sm90_check_cases.run(CASES, SMALL)
