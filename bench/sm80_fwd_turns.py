#!/usr/bin/env python3
"""The sm80 forward timed in turns beside PyTorch's flash (thirteenth session, h13-fwd80 /
h13-fwd80b; their turns13.py / turns14.py call this), as bench/sm80_vs_torch.py --turns does but
without its window-nothing rows.

  python3 bench/sm80_fwd_turns.py --lib SHIM --points 'D,N,causal;...' --variants 41,42 [--sustained]
  python3 bench/sm80_fwd_turns.py --old OLD.so --new NEW.so --points '256,512,0;...' --variants 60,61

--lib: one shim: contestants `table` (variant 0), its variants `vX`, flash; seeds N * 3 + D.
--old / --new: two shims side by side (the committed table and the candidate, with its bf16
variants): `old`, `new`, `vX` (on NEW), flash; seeds 1000 + the point's index; per-run ratios
new/old are printed (at the power limit at large N the runs' clocks differ, so only ratios within a
run compare). A point is 'D,N,causal' (bf16, B·N = 16384, H·D = 2048, the sweep's shape) or
'D,N,causal,B,H,dtype' (e.g. the odd-head-dim table: fp16, B = 16, H = 16, N = 2048); variants
run on bf16 points only.
--sustained: each contestant back to back for --seconds, --rounds times (alternate rounds
reversed), with the SM clock and the board power sampled (nvidia-smi) while its kernels run, to
tell a slower kernel from a lower clock under the power limit.
--profile old,v62: each named contestant once per point after the checks (under ncu -k ... -c).
"""
import argparse, json, os, statistics, subprocess, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch
import kernel_bench_common as common
from kernel_bench_common import make
from sm80_vs_torch import Sm80, rel_err
from torch.nn.attention import SDPBackend, sdpa_kernel
import torch.nn.functional as F

SWEEP_TOKENS = 16384  # B·N of the sweep's shape
SWEEP_WIDTH = 2048    # H·D
BATCH_MS = 200        # queued work per sustained batch
PREFILL_CYCLES = 4_000_000


def parse_point(point):
    f = point.split(",")
    D, N, causal = int(f[0]), int(f[1]), f[2] in ("1", "c")
    if len(f) > 3:
        return D, N, causal, int(f[3]), int(f[4]), f[5], True
    return D, N, causal, SWEEP_TOKENS // N, SWEEP_WIDTH // D, "bf16", False


def contestants_for(runs, D, N, causal, B, H, dtype, seed):
    """runs: (name, shim, variant); those the bucket lacks (RuntimeError) are left out."""
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    q, k, v = (make(dtype, B, N, H, D, "bshd", gen) for _ in range(3))
    qt, kt, vt = (x.transpose(1, 2) for x in (q, k, v))
    lse = torch.empty(B, H, N, device="cuda", dtype=torch.float32)

    def flash():
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            return F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)
    ref = flash().transpose(1, 2).float()
    out, errs = [], {}
    for name, lib, var in runs:
        o = torch.full_like(q, float("nan"))

        def call(lib=lib, var=var, o=o):
            lib.lib.fattn_sm80_set_forward_variant(var)
            lib.forward(q, k, v, o, lse, dtype, D ** -0.5, causal)
        try:
            call()
        except RuntimeError:  # a variant this bucket does not have
            continue
        torch.cuda.synchronize()
        errs[name] = rel_err(o.float(), ref)
        out.append((name, call, None))
    out.append(("flash", flash, None))
    return out, errs, 4 * B * H * N * N * D / (2 if causal else 1)


def smi():
    r = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,power.draw,temperature.gpu",
                        "--format=csv,noheader,nounits"], capture_output=True, text=True)
    return [float(x) for x in r.stdout.strip().split(",")]


def sustained(contestants, flops, seconds):
    res = {}
    for name, fn, _ in contestants:
        fn(); torch.cuda.synchronize()
        s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
        s.record(); fn(); e.record(); torch.cuda.synchronize()
        per = max(s.elapsed_time(e), 1e-3)
        batch = max(1, int(BATCH_MS / per))
        times, samples, t0 = [], [], time.time()
        while time.time() - t0 < seconds:
            s.record()
            for _ in range(batch):
                fn()
            e.record()
            samples.append(smi())  # sampled while the batch runs
            torch.cuda.synchronize()
            times.append(s.elapsed_time(e) / batch)
        steady = times[1:] or times
        ms = statistics.median(steady)
        clk = statistics.mean(x[0] for x in samples[1:] or samples)
        pw = statistics.mean(x[1] for x in samples[1:] or samples)
        res[name] = dict(tflops=flops / ms / 1e9, ms=ms, mhz=clk, watts=pw,
                         temp=samples[-1][2], tflops_per_ghz=flops / ms / 1e9 / (clk / 1000),
                         joules_per_pflop=pw * ms / 1e3 / (flops / 1e15))
    return res


def main():
    p = argparse.ArgumentParser(usage=__doc__)
    p.add_argument("--lib", help="one shim (table + variants)")
    p.add_argument("--old", help="with --new: two shims side by side")
    p.add_argument("--new")
    p.add_argument("--points", required=True)
    p.add_argument("--variants", default="")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--reps", type=int, default=8)
    p.add_argument("--sustained", action="store_true")
    p.add_argument("--seconds", type=float, default=1.0)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--json")
    p.add_argument("--profile", default="",
                   help="names of contestants to run once each per point (under ncu), no timing")
    a = p.parse_args()
    pair = a.lib is None
    if pair and not (a.old and a.new) or not pair and (a.old or a.new):
        p.error("give --lib, or --old and --new")
    if pair:
        libs = {"old": Sm80(a.old), "new": Sm80(a.new)}
        base_name = "old"
    else:
        sm80 = Sm80(a.lib)
        base_name = "table"
    variants = [int(x) for x in a.variants.split(",") if x]
    rows = []
    for i, point in enumerate(a.points.split(";")):
        D, N, causal, B, H, dtype, shaped = parse_point(point)
        tag = f"D={D} N={N} {'causal' if causal else 'nomask'} B={B} H={H}"
        if pair:
            runs = [("old", libs["old"], 0), ("new", libs["new"], 0)]
            target, seed, tag = libs["new"], 1000 + i, f"{tag} {dtype}"
        else:
            runs = [("table", sm80, 0)]
            target, seed = sm80, N * 3 + D
            tag += f" {dtype}" if shaped else ""
        if dtype == "bf16":
            runs += [(f"v{x}", target, x) for x in variants]
        cont, errs, flops = contestants_for(runs, D, N, causal, B, H, dtype, seed)
        if a.profile:
            torch.cuda.synchronize()
            for name in a.profile.split(","):
                dict((n, f) for n, f, _ in cont)[name]()
                torch.cuda.synchronize()
            print(f"{tag}: profiled {a.profile}", flush=True)
            continue
        if a.sustained:
            rounds = []
            for r in range(a.rounds):
                order = cont if r % 2 == 0 else cont[::-1]
                rounds.append(sustained(order, flops, a.seconds))
            key = dict(point=point, tag=tag) if pair else dict(D=D, N=N, causal=causal)
            rows.append(dict(key, sustained=rounds, checks=errs))
            for r, res in enumerate(rounds):
                print(f"{tag} sustained round {r}: " + ", ".join(
                    f"{n} {x['tflops']:.1f} TF/s {x['mhz']:.0f} MHz {x['watts']:.0f} W "
                    f"{x['tflops_per_ghz']:.1f} TF/s/GHz {x['joules_per_pflop']:.0f} J/PF"
                    for n, x in res.items()), flush=True)
            continue
        tf, per_run = common.tflops_in_turns(cont, flops, a.runs, a.reps,
                                             prefill_cycles=PREFILL_CYCLES)
        base = tf[base_name]
        line = f"{tag}: " + ", ".join(f"{n} {x:.1f} ({x / base:.3f})" for n, x in tf.items())
        if pair:
            rows.append(dict(point=point, tag=tag, tflops=tf, runs=per_run, checks=errs))
            ratios = " ".join(f"{r['new'] / r['old']:.3f}" for r in per_run)
            line += (f"; new/old per run {ratios}; new/flash {tf['new'] / tf['flash']:.3f} "
                     f"old/flash {base / tf['flash']:.3f}")
        else:
            rows.append(dict(D=D, N=N, causal=causal, tflops=tf, runs=per_run, checks=errs))
            line += (f"; table/flash {base / tf['flash']:.3f}; spread table "
                     f"{min(r['table'] for r in per_run):.1f}-"
                     f"{max(r['table'] for r in per_run):.1f}")
        print(line + f"; max rel err {max(errs.values()):.1e}", flush=True)
    if a.json:
        json.dump(rows, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
