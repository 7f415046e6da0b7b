#!/usr/bin/env python3
"""Correctness of the 256-bucket kernels of each --lib (shims of bench/sm90_candidates_build.sh
with SHIM_BUCKET=256) against the fp32 reference of bench/sm90_vs_cudnn.py: every work width
(208/224/240/256, the sector-box widths for D = 200 / 216), both dtypes, causal with Nq = Nk,
Nq > Nk (fully masked rows) and Nq < Nk, GQA, windows, ragged N, one-step tiles, padded rows,
and small-N launches of more tiles than an H100 has SMs (one-pair groups, both key walks).
  python3 check_d256.py --lib NAME=path.so [--lib ...] [--small] [--json out.json]"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, "bench")
import sm90_check_cases  # noqa: E402

CASES = [
    # dtype, B, Nq, Nk, Hq, Hkv, D, causal, left, right, layout
    ("bf16", 2, 2048, 2048, 2, 2, 256, False, -1, -1, "bshd"),
    ("fp16", 2, 2048, 2048, 2, 2, 256, True, -1, -1, "bshd"),
    ("bf16", 1, 1013, 1013, 2, 2, 256, True, -1, -1, "bshd"),
    ("fp16", 1, 1013, 1013, 4, 2, 256, False, -1, -1, "bshd"),
    ("bf16", 1, 1, 1013, 2, 2, 256, False, -1, -1, "bshd"),
    ("bf16", 1, 1013, 17, 4, 4, 256, True, -1, -1, "bshd"),
    ("fp16", 2, 700, 900, 4, 2, 256, False, -1, -1, "bhsd"),
    ("bf16", 1, 300, 500, 2, 2, 256, False, 48, 16, "bshd"),
    ("fp16", 1, 333, 77, 2, 1, 256, True, -1, -1, "bshd"),
    ("bf16", 1, 257, 257, 2, 2, 240, True, -1, -1, "bshd"),
    ("fp16", 1, 1000, 1000, 2, 2, 224, False, -1, -1, "bshd"),
    ("bf16", 1, 500, 500, 2, 2, 216, False, -1, -1, "bshd"),
    ("fp16", 1, 640, 640, 2, 2, 200, True, -1, -1, "bshd"),
    ("bf16", 1, 700, 700, 2, 2, 208, False, 100, 0, "bshd"),
    ("fp16", 1, 700, 700, 2, 2, 250, True, -1, -1, "pad"),
    ("bf16", 4, 1024, 1024, 10, 10, 256, True, -1, -1, "bshd"),    # 15: 320 tiles, 3 rounds
    ("fp16", 2, 1013, 600, 12, 4, 256, True, -1, -1, "bshd"),      # 16: Nq > Nk, GQA 3
    ("bf16", 3, 600, 1013, 16, 4, 224, True, -1, -1, "bshd"),      # 17: Nq < Nk, GQA 4
    ("fp16", 160, 17, 17, 1, 1, 256, True, -1, -1, "bshd"),        # 18: 160 one-step tiles
    ("bf16", 1, 512, 512, 40, 8, 256, True, -1, -1, "bshd"),       # 19: 160 tiles, GQA 5
    ("fp16", 2, 512, 512, 40, 40, 256, False, -1, -1, "bshd"),     # 20: non-causal, 320 tiles
    ("bf16", 2, 1000, 1000, 12, 6, 256, False, 200, 30, "bshd"),   # 21: window, GQA 2
]
SMALL = [CASES[i] for i in (2, 4, 5, 7, 8, 14, 18)]

if __name__ == "__main__":
    sm90_check_cases.run(CASES, SMALL)
