#!/usr/bin/env python3
"""h17-d64f: the summary of call.sh, bench/sm90_candidates_summary.py (run from the repository root,
as call.sh is).
  python3 summary.py <work dir> cur,m128,m256 > summary.md"""
import runpy
import sys

SHARED = "bench/sm90_candidates_summary.py"
sys.argv[0] = SHARED
runpy.run_path(SHARED, run_name="__main__")
