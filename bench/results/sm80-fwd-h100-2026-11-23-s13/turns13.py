#!/usr/bin/env python3
"""h13-fwd80: the sm80 forward timed in turns (table, shim variants, PyTorch's flash), bf16,
B·N = 16384, H·D = 2048, as bench/sm80_vs_torch.py --turns does but without its window-nothing
rows; and --sustained: each contestant run back to back for --seconds with the SM clock and the
board power sampled (nvidia-smi) while its kernels run, to tell a slower kernel from a lower
clock under the power limit at large N.
  python3 turns13.py --lib SHIM --points 'D,N,causal;...' --variants 41,42 [--sustained]"""
import argparse, json, os, statistics, subprocess, sys, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import torch
import kernel_bench_common as common
from kernel_bench_common import make
from sm80_vs_torch import Sm80, rel_err
from torch.nn.attention import SDPBackend, sdpa_kernel
import torch.nn.functional as F


def contestants_for(sm80, D, N, causal, variants, seed):
    B, H = 16384 // N, 2048 // D
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    q, k, v = (make("bf16", B, N, H, D, "bshd", gen) for _ in range(3))
    qt, kt, vt = (x.transpose(1, 2) for x in (q, k, v))
    lse = torch.empty(B, H, N, device="cuda", dtype=torch.float32)

    def flash():
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            return F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)
    ref = flash().transpose(1, 2).float()
    out = [("flash", flash, None)]
    errs = {}
    for var in [0] + variants:
        o = torch.full_like(q, float("nan"))

        def call(var=var, o=o):
            sm80.lib.fattn_sm80_set_forward_variant(var)
            sm80.forward(q, k, v, o, lse, "bf16", D ** -0.5, causal)
        try:
            call()
        except RuntimeError:  # a variant this bucket does not have
            continue
        torch.cuda.synchronize()
        name = "table" if var == 0 else f"v{var}"
        errs[name] = rel_err(o.float(), ref)
        out.insert(len(out) - 1, (name, call, None))
    return out, errs, 4 * B * H * N * N * D / (2 if causal else 1), (B, H)


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
        batch = max(1, int(200 / per))  # ~200 ms of queued work per batch
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
    p = argparse.ArgumentParser()
    p.add_argument("--lib", required=True)
    p.add_argument("--points", required=True)
    p.add_argument("--variants", default="")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--reps", type=int, default=8)
    p.add_argument("--sustained", action="store_true")
    p.add_argument("--seconds", type=float, default=1.0)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--json")
    a = p.parse_args()
    sm80 = Sm80(a.lib)
    variants = [int(x) for x in a.variants.split(",") if x]
    rows = []
    for point in a.points.split(";"):
        f = point.split(",")
        D, N, causal = int(f[0]), int(f[1]), f[2] in ("1", "c")
        cont, errs, flops, (B, H) = contestants_for(sm80, D, N, causal, variants, N * 3 + D)
        tag = f"D={D} N={N} {'causal' if causal else 'nomask'} B={B} H={H}"
        if a.sustained:
            rounds = []
            for r in range(a.rounds):
                order = cont if r % 2 == 0 else cont[::-1]
                rounds.append(sustained(order, flops, a.seconds))
            rows.append(dict(D=D, N=N, causal=causal, sustained=rounds, checks=errs))
            for r, res in enumerate(rounds):
                print(f"{tag} sustained round {r}: " + ", ".join(
                    f"{n} {x['tflops']:.1f} TF/s {x['mhz']:.0f} MHz {x['watts']:.0f} W "
                    f"{x['tflops_per_ghz']:.1f} TF/s/GHz {x['joules_per_pflop']:.0f} J/PF"
                    for n, x in res.items()), flush=True)
            continue
        tf, per_run = common.tflops_in_turns(cont, flops, a.runs, a.reps,
                                             prefill_cycles=4_000_000)
        rows.append(dict(D=D, N=N, causal=causal, tflops=tf, runs=per_run, checks=errs))
        base = tf["table"]
        print(f"{tag}: " + ", ".join(f"{n} {x:.1f} ({x / base:.3f})" for n, x in tf.items()) +
              f"; table/flash {base / tf['flash']:.3f}; spread table "
              f"{min(r['table'] for r in per_run):.1f}-{max(r['table'] for r in per_run):.1f}"
              f"; max rel err {max(errs.values()):.1e}", flush=True)
    if a.json:
        json.dump(rows, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
