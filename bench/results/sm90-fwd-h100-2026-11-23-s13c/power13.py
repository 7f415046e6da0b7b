#!/usr/bin/env python3
"""h13-fwd90c: the Hopper forward (shims) and cuDNN (SDPA) run back to back for --seconds each at
one point after the other, in alternating order over --rounds, with NVML sampled every 20 ms
(SM clock, board power, clock-event reasons) and the board's energy counter read at the window's
ends: TFLOP/s, mean SM clock, mean power, J per PFLOP. bf16, B·N = 16384, H·D = 2048.
--once: each contestant once per point (for ncu).
  python3 power13.py --lib cur=cur.so --lib cand=cand.so --points 'D,N,causal;...' [--tag T]
"""
import argparse, ctypes, json, math, os, statistics, sys, threading, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from kernel_bench_common import make
from sm90_vs_cudnn import Sm90

SAMPLE_S = 0.02      # NVML sampling period
WARM_S = 0.3         # each contestant's first part of its window, not counted (clock settles)
BATCH_MS = 100.0     # work queued between two synchronisations
SW_POWER_CAP, HW_SLOWDOWN, SW_THERMAL, HW_THERMAL = 0x4, 0x8, 0x20, 0x40


class Nvml:
    def __init__(self):
        self.lib = ctypes.CDLL("libnvidia-ml.so.1")
        self.lib.nvmlInit_v2()
        self.h = ctypes.c_void_p()
        self.lib.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(self.h))
        self.reasons = getattr(self.lib, "nvmlDeviceGetCurrentClocksEventReasons", None) or \
            self.lib.nvmlDeviceGetCurrentClocksThrottleReasons

    def clock(self):
        c = ctypes.c_uint(); self.lib.nvmlDeviceGetClockInfo(self.h, 1, ctypes.byref(c))
        return c.value

    def power_w(self):
        c = ctypes.c_uint(); self.lib.nvmlDeviceGetPowerUsage(self.h, ctypes.byref(c))
        return c.value / 1000

    def energy_j(self):
        c = ctypes.c_ulonglong()
        self.lib.nvmlDeviceGetTotalEnergyConsumption(self.h, ctypes.byref(c))
        return c.value / 1000

    def temp(self):
        c = ctypes.c_uint(); self.lib.nvmlDeviceGetTemperature(self.h, 0, ctypes.byref(c))
        return c.value

    def why(self):
        c = ctypes.c_ulonglong(); self.reasons(self.h, ctypes.byref(c))
        return c.value


class Sampler(threading.Thread):
    def __init__(self, nvml):
        super().__init__(daemon=True)
        self.nvml, self.samples, self.stop = nvml, [], False

    def run(self):
        while not self.stop:
            n = self.nvml
            self.samples.append((time.time(), n.clock(), n.power_w(), n.why()))
            time.sleep(SAMPLE_S)

    def between(self, a, b):
        return [s for s in self.samples if a <= s[0] <= b]


def contestants_for(libs, D, N, causal):
    B, H = 16384 // N, 2048 // D
    gen = torch.Generator(device="cuda"); gen.manual_seed(N + D)
    q, k, v = (make("bf16", B, N, H, D, "bshd", gen) for _ in range(3))
    out = torch.empty_like(q); lse = torch.empty(B, H, N, device="cuda", dtype=torch.float32)
    qt, kt, vt = (x.transpose(1, 2).contiguous() for x in (q, k, v))
    out_list = []
    for name, lib in libs:
        out_list.append((name, lambda lib=lib: lib.forward(q, k, v, out, lse, "bf16",
                                                           1.0 / math.sqrt(D), causal)))

    def cudnn():
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)
    out_list.append(("cudnn", cudnn))
    return out_list, 4 * B * H * N * N * D / (2 if causal else 1)


def sustained(nvml, sampler, name, fn, flops, seconds):
    fn(); torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); fn(); e.record(); torch.cuda.synchronize()
    batch = max(1, int(BATCH_MS / max(s.elapsed_time(e), 1e-3)))
    t_start = time.time()
    counted, per_call, e0 = 0, [], None
    while True:
        now = time.time()
        if e0 is None and now - t_start >= WARM_S:
            torch.cuda.synchronize()
            t0, e0 = time.time(), nvml.energy_j()
        if now - t_start >= seconds:
            break
        s.record()
        for _ in range(batch):
            fn()
        e.record(); e.synchronize()
        if e0 is not None:
            counted += batch
            per_call.append(s.elapsed_time(e) / batch)
    t1, e1 = time.time(), nvml.energy_j()
    inside = sampler.between(t0, t1)
    wall = t1 - t0
    ms = statistics.median(per_call)
    mhz = statistics.mean(x[1] for x in inside)
    return dict(name=name, tflops=flops / ms / 1e9, ms=ms, wall_tflops=flops * counted / wall / 1e12,
                mhz=mhz, mhz_min=min(x[1] for x in inside), mhz_max=max(x[1] for x in inside),
                watts_sampled=statistics.mean(x[2] for x in inside), watts=(e1 - e0) / wall,
                joules_per_pflop=(e1 - e0) / (flops * counted / 1e15),
                tflops_per_ghz=flops / ms / 1e9 / (mhz / 1000),
                power_cap_frac=sum(1 for x in inside if x[3] & SW_POWER_CAP) / len(inside),
                thermal_frac=sum(1 for x in inside if x[3] & (SW_THERMAL | HW_THERMAL | HW_SLOWDOWN))
                / len(inside), temp=nvml.temp(), calls=counted, samples=len(inside))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lib", action="append", required=True)
    p.add_argument("--points", required=True)
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--skip", default="", help="NAME@D,...: leave NAME out at these head dims")
    p.add_argument("--once", action="store_true")
    p.add_argument("--tag", default="")
    p.add_argument("--json")
    a = p.parse_args()
    libs = [(x.split("=", 1)[0], Sm90(x.split("=", 1)[1])) for x in a.lib]
    skip = {tuple(x.split("@")) for x in a.skip.split(",") if x}
    nvml = Nvml()
    sampler = Sampler(nvml); sampler.start()
    rows = []
    for point in a.points.split(";"):
        D, N, c = (int(x) for x in point.split(","))
        cont, flops = contestants_for(libs, D, N, bool(c))
        cont = [(n, f) for n, f in cont if (n, str(D)) not in skip]
        if a.once:
            for n, f in cont:
                f()
            torch.cuda.synchronize()
            continue
        for r in range(a.rounds):
            order = cont if r % 2 == 0 else cont[::-1]
            res = [sustained(nvml, sampler, n, f, flops, a.seconds) for n, f in order]
            for x in res:
                x.update(D=D, N=N, causal=c, round=r, tag=a.tag)
            rows += res
            print(f"{a.tag} D={D} N={N} c={c} round {r}: " + "; ".join(
                f"{x['name']} {x['tflops']:.1f} TF/s {x['mhz']:.0f} MHz ({x['mhz_min']}-"
                f"{x['mhz_max']}) {x['watts']:.0f} W {x['joules_per_pflop']:.0f} J/PF "
                f"{x['tflops_per_ghz']:.1f} TF/s/GHz cap {x['power_cap_frac']:.2f} "
                f"{x['temp']} C" for x in res), flush=True)
    sampler.stop = True
    if a.json:
        json.dump(rows, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
