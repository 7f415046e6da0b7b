#!/usr/bin/env python3
"""h16-odd90 call 2: sm90 forward shims timed in turns in one process (bench/kernel_bench_common
time_in_turns: every round times each lib's batch of 10 calls, the order rotating by one per
round), the whole sweep repeated --runs times with the lib list reversed on odd runs. Packed
q, k, v, out [B, N, H, D]; N = 2048 at B = 16, H = 16, N = 8192 at B = 4, H = 16. Prints per
point each run's ms per call and new/old, and the max |new - old| of one output.

  python3 odd_turns.py --lib new=... --lib old=... [--lib v2=... --v2-points 72]
"""
import argparse, ctypes, json, math, os, sys
import torch
sys.path.insert(0, os.environ.get("BENCH_DIR", "bench"))
import kernel_bench_common as common

p = argparse.ArgumentParser()
p.add_argument("--lib", action="append", default=[])
p.add_argument("--runs", type=int, default=3)
p.add_argument("--rounds", type=int, default=5)
p.add_argument("--dims", default="72,136,200")
p.add_argument("--controls", default="80,208")
p.add_argument("--extra", default="", help="NAME: a third lib timed only at D=72 fp16 N=2048")
p.add_argument("--json")
a = p.parse_args()
libs = {}
for item in a.lib:
    name, path = item.split("=", 1)
    libs[name] = common.load_forward_shim(path)
error = ctypes.create_string_buffer(common.ERROR_BYTES)
points = []
for dtype in ("fp16", "bf16"):
    for N in (2048, 8192):
        for D in [int(x) for x in a.dims.split(",")]:
            for causal in (False, True):
                points.append((dtype, N, D, causal, ("new", "old")))
for D in [int(x) for x in a.controls.split(",") if x]:
    points.append(("fp16", 2048, D, False, ("new", "old")))
if a.extra:
    for causal in (False, True):
        points.append(("fp16", 2048, 72, causal, (a.extra, "old")))
results = {}
for run in range(a.runs):
    for dtype, N, D, causal, names in points:
        B, H = (16, 16) if N == 2048 else (4, 16)
        gen = torch.Generator(device="cuda"); gen.manual_seed(D + N)
        q, k, v = (common.make(dtype, B, N, H, D, "bshd", gen) for _ in range(3))
        outs = {n: torch.empty_like(q) for n in names}
        lse = torch.empty(B, H, N, device="cuda", dtype=torch.float32)
        def call(n):
            return lambda: common.call_forward(libs[n].fattn_sm90_forward, error, q, k, v,
                                               outs[n], lse, dtype, 1.0 / math.sqrt(D), causal,
                                               -1, -1)
        order = list(names) if run % 2 == 0 else list(reversed(names))
        ms = common.time_in_turns([(n, call(n), None) for n in order], reps=a.rounds, inner=10,
                                  warmup=3)
        diff = (outs[names[0]].float() - outs[names[1]].float()).abs().max().item()
        flops = 4 * B * H * N * N * D / (2 if causal else 1)
        key = f"{dtype} N={N} D={D} causal={int(causal)} {names[0]}/{names[1]}"
        r = ms[names[1]] / ms[names[0]]
        results.setdefault(key, []).append(dict(ms={n: ms[n] for n in names}, ratio=r, diff=diff,
                                                tflops={n: flops / ms[n] / 1e9 for n in names}))
        print(f"run {run} {key}: " + " ".join(f"{n} {ms[n]:.3f} ms ({flops / ms[n] / 1e9:.0f})"
                                             for n in names) + f"  speedup {r:.3f}  maxdiff {diff:.2e}",
              flush=True)
print("\n| point | TFLOP/s new | TFLOP/s old | speedup per run | geomean |")
print("|---|---|---|---|---|")
for key, rs in results.items():
    g = math.exp(sum(math.log(x["ratio"]) for x in rs) / len(rs))
    n0, n1 = list(rs[0]["ms"])
    tf0 = sum(x["tflops"][n0] for x in rs) / len(rs); tf1 = sum(x["tflops"][n1] for x in rs) / len(rs)
    print(f"| {key} | {tf0:.0f} | {tf1:.0f} | " + " / ".join(f"{x['ratio']:.3f}" for x in rs) +
          f" | {g:.3f} |")
if a.json:
    json.dump(results, open(a.json, "w"), indent=1)
