#!/usr/bin/env python3
"""h17-d192c: s12b's bandwidth model (../sm90-fwd-h100-2026-11-23-s12b/simulate_bw.py: per-CTA
producer ring, one FIFO DRAM server of `bw` MB per step, LRU L2, miss / hit latency, in-flight
sharing, jitter; the real snake over 132 CTAs) run for the 192 bucket's 128 x 96 tiles (B = 16384 / N,
H = 10): cur (the masked rule's groups: 66 pairs at N = 512, 33 at 1k; every tile walks down),
opg (one pair per group, down), asc (one pair per group, even rounds ascending).
  python3 simulate_d192.py [--seqlens 512,1024] [--bw 3.5,4.5] [--l2-mb 24,30] [--overhead 1.6,2.2]"""
import argparse
import importlib.util
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "s12b_bw", os.path.join(HERE, "..", "sm90-fwd-h100-2026-11-23-s12b", "simulate_bw.py"))
bw_model = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bw_model)
s11c = bw_model.s11c
s11c.SHAPES[192] = (128, 96)
bw_model.STAGES[192] = 2
RULE = {512: 66, 1024: 33}  # forward.cuh's heads_per_group for D = 192 masked launches (H100)

p = argparse.ArgumentParser()
p.add_argument("--seqlens", default="512,1024")
p.add_argument("--bw", default="3.5,4.5")
p.add_argument("--l2-mb", default="24,30")
p.add_argument("--overhead", default="1.6,2.2", help="tile boundary in key steps")
p.add_argument("--seeds", type=int, default=6)
a = p.parse_args()
print("| N | bw MB/step | L2 MB | overhead | cur span | opg / cur | asc / cur | extra K/V MB cur / opg / asc |")
print("|---" * 8 + "|")
for N in map(int, a.seqlens.split(",")):
    for bw in map(float, a.bw.split(",")):
        for l2 in map(float, a.l2_mb.split(",")):
            for ov in map(float, a.overhead.split(",")):
                bw_model.OVERHEAD[192] = ov
                res = {}
                for name, groups, walk in (("cur", RULE[N], "down"), ("opg", 1, "down"),
                                           ("asc", 1, "even-up")):
                    bw_model.hpg = lambda D, m_blocks, g=groups: g
                    runs = [bw_model.simulate(192, N, walk, bw, l2, 0.5, 0.15, 0.15, s)
                            for s in range(a.seeds)]
                    res[name] = (statistics.mean(r[0] for r in runs),
                                 statistics.mean(r[1] for r in runs))
                c = res["cur"][0]
                print(f"| {N} | {bw} | {l2:.0f} | {ov} | {c:.1f} | {c / res['opg'][0]:.3f} | "
                      f"{c / res['asc'][0]:.3f} | {res['cur'][1]:.1f} / {res['opg'][1]:.1f} / "
                      f"{res['asc'][1]:.1f} |", flush=True)
