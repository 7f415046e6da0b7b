#!/usr/bin/env python3
"""The command line shared by the results folders' Hopper-forward check scripts (check_d192.py,
check_d256.py, check_n512.py): each defines its CASES (bench/sm90_vs_cudnn.py's case tuples)
and the SMALL subset for compute-sanitizer, then calls run(CASES, SMALL) under
`if __name__ == "__main__"` (cases_of reads another script's CASES). For every --lib (a
shim of bench/sm90_candidates_build.sh) it checks each case against the fp32 reference and
exits nonzero on any failure.
  python3 <folder>/check_<x>.py --lib NAME=path.so [--lib ...] [--small | --case I] [--json out.json]"""
import argparse
import importlib.util
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sm90_vs_cudnn as s  # noqa: E402
import kernel_bench_common as common  # noqa: E402


def cases_of(path):
    """Another check script's CASES, for a script that extends them (its run() is not called)."""
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3] + "_cases", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CASES


def run(cases, small_cases):
    parser = argparse.ArgumentParser()
    parser.add_argument("--lib", action="append", required=True, help="NAME=path.so, repeatable")
    parser.add_argument("--small", action="store_true", help="only the sanitizer subset")
    parser.add_argument("--case", type=int, help="only cases[CASE]")
    parser.add_argument("--json")
    args = parser.parse_args()
    chosen = ([cases[args.case]] if args.case is not None
              else small_cases if args.small else cases)
    report, failures = {}, 0
    for spec in args.lib:
        name, _, path = spec.rpartition("=")
        print(f"== {name}", flush=True)
        f, report[name] = s.check(s.Sm90(path), chosen)
        failures += f
    sys.exit(common.finish(report, args.json, failures))
