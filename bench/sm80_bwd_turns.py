#!/usr/bin/env python3
"""The sm80 backward of two shims timed in turns beside PyTorch's flash (FA2) backward: the old /
new comparison of a backward change (twentieth session: shifted windows for packed odd head dims).

  python3 bench/sm80_bwd_turns.py --old OLD.so --new NEW.so --points 'D,N,causal,B,H,dtype;...'

Shims from bench/sm80_old_new_build.sh <build> <commit> "<buckets>" [jobs] bwd. A point is as in
bench/sm80_fwd_turns.py ('D,N,causal' is the sweep's bf16 shape, B·N = 16384, H·D = 2048);
tensors are packed (B, N, H, D), so an odd D gives rows off 16-byte words. O comes from SDPA's
flash forward, the LSE from fp32 scores (per batch), dO is random; every contestant gets the same
inputs. `flash` is torch.autograd.grad through F.scaled_dot_product_attention on the flash
backend (its head-dim padding and slicing included, as a user of PyTorch pays them); old and new
are checked against its gradients. TFLOP/s count the backward's five products, 2.5 times the
forward's 4·B·H·N²·D (halved under causal). Per-run new/old ratios are printed: at the power
limit runs' clocks differ, so only ratios within a run compare.
"""
import argparse, json, math, os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
import kernel_bench_common as common
from kernel_bench_common import make
from sm80_fwd_turns import PREFILL_CYCLES, parse_point
from sm80_vs_torch import Sm80, rel_err

BACKWARD_FLOPS_OVER_FORWARD = 2.5  # five N×N×D products against the forward's two


def log_sum_exp(q, k, scale, causal):
    """(B, H, N) float32 LSE of packed (B, N, H, D) q and k, one batch at a time (N² scores)."""
    rows = []
    for b in range(q.shape[0]):
        s = torch.einsum("nhd,mhd->hnm", q[b].float(), k[b].float()) * scale
        if causal:
            n, m = s.shape[-2:]
            s.masked_fill_(torch.ones(n, m, device=s.device, dtype=torch.bool).triu(m - n + 1),
                           -math.inf)
        rows.append(torch.logsumexp(s, dim=-1))
    return torch.stack(rows)


def contestants_for(libs, D, N, causal, B, H, dtype, seed, deterministic=False):
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    q, k, v, dout = (make(dtype, B, N, H, D, "bshd", gen) for _ in range(4))
    scale = D ** -0.5
    leaves = [x.detach().clone().requires_grad_() for x in (q, k, v)]
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        graph_out = F.scaled_dot_product_attention(*(x.transpose(1, 2) for x in leaves),
                                                   is_causal=causal, scale=scale)
    out = graph_out.detach().transpose(1, 2).contiguous()
    lse = log_sum_exp(q, k, scale, causal)
    dout_graph = dout.transpose(1, 2)

    def flash():
        return torch.autograd.grad(graph_out, leaves, dout_graph, retain_graph=True)
    reference = [g.float() for g in flash()]
    contestants, errors = [], {}
    for name, lib in libs.items():
        grads = [torch.full_like(x, float("nan")) for x in (q, k, v)]

        def call(lib=lib, grads=grads):
            lib.backward(q, k, v, out, dout, lse, *grads, dtype, scale, causal,
                         deterministic=deterministic)
        call()
        torch.cuda.synchronize()
        errors[name] = max(rel_err(g.float(), r) for g, r in zip(grads, reference))
        contestants.append((name, call, None))
    contestants.append(("flash", flash, None))
    flops = BACKWARD_FLOPS_OVER_FORWARD * 4 * B * H * N * N * D / (2 if causal else 1)
    return contestants, errors, flops


def main():
    p = argparse.ArgumentParser(usage=__doc__)
    p.add_argument("--old", required=True)
    p.add_argument("--new", required=True)
    p.add_argument("--points", required=True)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--reps", type=int, default=8)
    p.add_argument("--json")
    p.add_argument("--deterministic", action="store_true",
                   help="old and new in the deterministic mode (flash as always)")
    a = p.parse_args()
    libs = {"old": Sm80(a.old), "new": Sm80(a.new)}
    rows = []
    for i, point in enumerate(a.points.split(";")):
        D, N, causal, B, H, dtype, _ = parse_point(point)
        tag = (f"D={D} N={N} {'causal' if causal else 'nomask'} B={B} H={H} {dtype}" +
               (" deterministic" if a.deterministic else ""))
        contestants, errors, flops = contestants_for(libs, D, N, causal, B, H, dtype, 1000 + i,
                                                   a.deterministic)
        tf, per_run = common.tflops_in_turns(contestants, flops, a.runs, a.reps,
                                             prefill_cycles=PREFILL_CYCLES)
        ratios = " ".join(f"{r['new'] / r['old']:.3f}" for r in per_run)
        rows.append(dict(point=point, tag=tag, tflops=tf, runs=per_run, checks=errors))
        print(f"{tag}: " + ", ".join(f"{n} {x:.1f}" for n, x in tf.items()) +
              f"; new/old per run {ratios}; new/flash {tf['new'] / tf['flash']:.3f} "
              f"old/flash {tf['old'] / tf['flash']:.3f}; max rel err {max(errors.values()):.1e}",
              flush=True)
        del contestants
        torch.cuda.empty_cache()
    if a.json:
        json.dump(rows, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
