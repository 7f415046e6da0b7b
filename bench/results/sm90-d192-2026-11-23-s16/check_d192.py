#!/usr/bin/env python3
"""Correctness of the 192-bucket kernels of each --lib (build.sh's 192-bucket shims) against the fp32
reference of bench/sm90_vs_cudnn.py: every work width (144/160/176/192, the sector-box widths
for D = 136/152), both dtypes, causal / window / GQA / ragged / strided / padded layouts.
  python3 check_d192.py --lib NAME=path.so [--lib ...] [--small] [--json out.json]"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, "bench")
import sm90_check_cases  # noqa: E402

CASES = [
    # dtype, B, Nq, Nk, Hq, Hkv, D, causal, left, right, layout
    ("bf16", 2, 2048, 2048, 2, 2, 192, False, -1, -1, "bshd"),
    ("fp16", 2, 2048, 2048, 2, 2, 192, True, -1, -1, "bshd"),
    ("bf16", 1, 1013, 1013, 2, 2, 192, True, -1, -1, "bshd"),
    ("fp16", 1, 1013, 1013, 4, 2, 192, False, -1, -1, "bshd"),
    ("bf16", 1, 1, 1013, 2, 2, 192, False, -1, -1, "bshd"),
    ("bf16", 1, 1013, 17, 4, 4, 192, True, -1, -1, "bshd"),
    ("fp16", 2, 700, 900, 4, 2, 192, False, -1, -1, "bhsd"),
    ("bf16", 1, 300, 500, 2, 2, 192, False, 48, 16, "bshd"),
    ("fp16", 1, 333, 77, 2, 1, 192, True, -1, -1, "bshd"),
    ("bf16", 1, 257, 257, 2, 2, 176, True, -1, -1, "bshd"),
    ("fp16", 1, 1000, 1000, 2, 2, 160, False, -1, -1, "bshd"),
    ("bf16", 1, 500, 500, 2, 2, 152, False, -1, -1, "bshd"),
    ("fp16", 1, 640, 640, 2, 2, 136, True, -1, -1, "bshd"),
    ("bf16", 1, 700, 700, 2, 2, 129, True, -1, -1, "pad"),
    ("fp16", 1, 4096, 4096, 1, 1, 192, False, -1, -1, "bshd"),
]
SMALL = [CASES[i] for i in (2, 4, 5, 7, 8, 11)]

if __name__ == "__main__":
    sm90_check_cases.run(CASES, SMALL)
