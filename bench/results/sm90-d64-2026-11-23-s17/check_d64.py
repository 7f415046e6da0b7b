#!/usr/bin/env python3
"""Correctness of the 64-bucket kernels of each --lib (build.sh's 64-bucket shims) against the fp32
reference of bench/sm90_vs_cudnn.py: both dtypes; causal with Nq = Nk, Nq > Nk (fully masked rows)
and Nq < Nk; GQA; windows; ragged N whose last tile leaves consumers without rows (130, 193,
1000, 1013); launches of more tiles than SMs (both walk parities of keys_ascending_even_rounds in
m128); the sweep's own N = 512 / 1k shapes; D < 64 (the bucket's one width), bhsd and padded rows.
  python3 check_d64.py --lib NAME=path.so [--lib ...] [--small | --case I] [--json out.json]"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, "bench")
import sm90_check_cases  # noqa: E402

CASES = [
    # dtype, B, Nq, Nk, Hq, Hkv, D, causal, left, right, layout
    ("bf16", 2, 2048, 2048, 4, 4, 64, False, -1, -1, "bshd"),
    ("fp16", 2, 2048, 2048, 4, 4, 64, True, -1, -1, "bshd"),
    ("bf16", 4, 1013, 1013, 8, 2, 64, True, -1, -1, "bshd"),      # GQA, > 132 tiles
    ("fp16", 4, 1013, 1013, 8, 2, 64, False, -1, -1, "bshd"),
    ("bf16", 1, 1, 1013, 2, 2, 64, False, -1, -1, "bshd"),
    ("bf16", 1, 1013, 17, 4, 4, 64, True, -1, -1, "bshd"),        # Nq > Nk causal
    ("fp16", 2, 600, 1013, 8, 2, 64, True, -1, -1, "bshd"),       # Nq < Nk causal, GQA
    ("bf16", 3, 1013, 600, 8, 2, 64, True, -1, -1, "bshd"),       # Nq > Nk causal, GQA
    ("fp16", 2, 700, 900, 4, 2, 64, False, -1, -1, "bhsd"),
    ("bf16", 1, 300, 500, 2, 2, 64, False, 48, 16, "bshd"),
    ("fp16", 1, 450, 450, 2, 2, 64, False, 70, 20, "bshd"),
    ("fp16", 1, 333, 77, 2, 1, 64, True, -1, -1, "bshd"),
    ("bf16", 1, 130, 130, 2, 2, 64, True, -1, -1, "bshd"),
    ("fp16", 1, 193, 193, 2, 2, 64, False, -1, -1, "bshd"),
    ("bf16", 2, 1000, 1000, 2, 2, 64, True, -1, -1, "bshd"),
    ("bf16", 1, 257, 257, 2, 2, 48, True, -1, -1, "bshd"),
    ("fp16", 1, 500, 500, 2, 2, 40, False, -1, -1, "bshd"),
    ("bf16", 1, 700, 700, 2, 2, 56, True, -1, -1, "pad"),
    ("bf16", 32, 512, 512, 32, 32, 64, True, -1, -1, "bshd"),     # the sweep's N = 512
    ("fp16", 32, 512, 512, 32, 8, 64, False, -1, -1, "bshd"),
    ("bf16", 16, 1024, 1024, 32, 32, 64, False, -1, -1, "bshd"),  # the sweep's N = 1k
    ("fp16", 16, 1024, 1024, 32, 8, 64, True, -1, -1, "bshd"),
]
SMALL = [CASES[i] for i in (4, 5, 6, 9, 11, 12, 13)]

if __name__ == "__main__":
    sm90_check_cases.run(CASES, SMALL)
