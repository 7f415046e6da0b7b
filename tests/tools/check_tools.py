#!/usr/bin/env python3
"""Checks the outputs of `fattn trace`, `fattn roofline` and `fattn bench --sweep head-dim` on
small CPU problems: the trace is valid Chrome-trace JSON holding the expected phases in the
expected counts, the roofline's numbers agree with the FLOPs and bytes counted independently
here, and the sweep covers every head dim it was asked for.

usage: check_tools.py PATH_TO_FATTN   (run by ctest)
"""
import json
import math
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from pathlib import Path

FATTN = sys.argv[1]
# A problem small enough to run in seconds on two cores, with sizes that are not tile multiples.
B, H, N, D = 1, 2, 200, 72
PROBLEM = ["--device", "cpu", "--batch", str(B), "--heads", str(H), "--seqlen", str(N), "--head-dim", str(D)]
CPU_KEY_TILE = CPU_QUERY_BLOCK = 64  # src/cpu/packing.hpp: kKeyTile, kQueryBlock


def run(*args):
    result = subprocess.run([FATTN, *args], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"fattn {' '.join(args)} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return result.stdout


def close(a, b, rel=1e-6):
    return math.isclose(a, b, rel_tol=rel)


def check_trace(folder):
    path = folder / "trace.json"
    summary = json.loads(run("trace", *PROBLEM, "--direction", "fwdbwd", "--output", str(path), "--json"))
    trace = json.loads(path.read_text())  # must parse as JSON
    events = trace["traceEvents"]
    complete = [e for e in events if e["ph"] == "X"]
    assert all(e["dur"] >= 0 and e["ts"] >= 0 for e in complete), "negative time in the trace"
    phases = {}
    for e in complete:
        if e["cat"] == "phase":
            key = (e["args"]["implementation"], e["name"])
            phases[key] = phases.get(key, 0) + 1
    host = [e["name"] for e in complete if e["cat"] == "host"]
    for name in ("cpu_flash forward", "cpu_flash backward", "cpu_standard forward", "cpu_standard backward"):
        assert name in host, f"host phase {name!r} missing from {host}"
    query_blocks = math.ceil(N / CPU_QUERY_BLOCK)
    key_tiles = math.ceil(N / CPU_KEY_TILE)
    # cpu_flash forward: one event per (head, query block) and per (kv head, key tile) packed.
    assert phases[("cpu_flash", "query block")] == B * H * query_blocks, phases
    assert phases[("cpu_flash", "pack K, V tile")] >= B * H * key_tiles, phases
    assert phases[("cpu_flash", "key tile: dK, dV, dQ partial")] == B * H * key_tiles, phases
    # cpu_standard: softmax once per (head, query block); one S = Q·Kᵀ pass per head and thread
    # (forward and backward each).
    assert phases[("cpu_standard", "P = softmax(S)")] == B * H * query_blocks, phases
    assert phases[("cpu_standard", "O = P·V")] == B * H * query_blocks, phases
    assert phases[("cpu_standard", "dQ = dS·K")] == B * H * query_blocks, phases
    threads = len({e["tid"] for e in complete if e["cat"] == "phase" and e["args"]["implementation"] == "cpu_standard"})
    assert phases[("cpu_standard", "S = Q·Kᵀ")] == 2 * B * H * threads, phases
    by_backend = {i["ran"]: i for i in summary["implementations"]}
    for backend in ("cpu_flash", "cpu_standard"):
        counted = sum(n for (impl, _), n in phases.items() if impl == backend)
        assert by_backend[backend]["phase_count"] == counted, (backend, counted, by_backend[backend])
    print(f"trace: {len(complete)} events; phases as expected ({query_blocks} query blocks, {key_tiles} key tiles per head)")


def check_roofline(folder):
    svg = folder / "roofline.svg"
    report = json.loads(run("roofline", *PROBLEM, "--repeats", "1", "--svg", str(svg), "--json"))
    ElementTree.parse(svg)  # well-formed SVG
    flops = 4.0 * B * H * N * N * D
    e = 4  # fp32
    q = e * B * N * H * D
    minimal = 2 * q + 2 * q + 4 * B * H * N  # q, out; k, v (H = Hkv); lse
    ceilings = report["ceilings"]
    assert ceilings["peak_flops"] > 0 and ceilings["bandwidth_bytes_per_second"] > 0, ceilings
    assert close(ceilings["ridge_intensity"], ceilings["peak_flops"] / ceilings["bandwidth_bytes_per_second"])
    rows = {r["ran"]: r for r in report["implementations"]}
    for name, r in rows.items():
        assert close(r["flops"], flops), (name, r["flops"], flops)
        assert close(r["minimal_bytes"], minimal), (name, r["minimal_bytes"], minimal)
        assert close(r["intensity"], r["flops"] / r["dram_bytes"])
        assert close(r["minimal_intensity"], r["flops"] / r["minimal_bytes"])
        seconds = r["median_ms"] / 1e3
        assert close(r["achieved_flops_per_second"], r["flops"] / seconds, 1e-5)
        assert close(r["achieved_bytes_per_second"], r["dram_bytes"] / seconds, 1e-5)
        roof = min(ceilings["peak_flops"], r["intensity"] * ceilings["bandwidth_bytes_per_second"])
        assert close(r["attainable_flops_per_second"], roof, 1e-5)
    # Standard writes and re-reads S and P: 4 touches of B·H·N·N float32 scores, all charged to DRAM.
    assert close(rows["cpu_standard"]["moved_bytes"], minimal + 4 * 4 * B * H * N * N), rows["cpu_standard"]
    assert close(rows["cpu_standard"]["dram_bytes"], rows["cpu_standard"]["moved_bytes"]), rows["cpu_standard"]
    # Flash re-reads each head's K and V once per query tile (tile traffic); those re-reads mostly
    # hit the cache, so only the compulsory bytes are charged to DRAM.
    query_tiles = math.ceil(N / CPU_QUERY_BLOCK)
    assert close(rows["cpu_flash"]["moved_bytes"], minimal + 2 * q * (query_tiles - 1)), rows["cpu_flash"]
    assert close(rows["cpu_flash"]["dram_bytes"], minimal), rows["cpu_flash"]
    print(f"roofline: FLOPs, bytes and intensities consistent; standard moves "
          f"{rows['cpu_standard']['moved_bytes'] / minimal:.1f}× the compulsory bytes")


def check_sweep():
    dims = [64, 72, 129]
    report = json.loads(run("bench", "--device", "cpu", "--sweep", "head-dim", "--sweep-values",
                            ",".join(map(str, dims)), "--seqlen", "96", "--heads", "2", "--repeats", "1", "--json"))
    points = report["points"]
    assert [p["head_dim"] for p in points] == dims, points
    for p in points:
        assert close(p["flops"], 4.0 * 1 * 2 * 96 * 96 * p["head_dim"]), p
        for r in p["results"]:
            assert r["ok"], r
            assert close(r["flops_per_second"], p["flops"] / (r["median_ms"] / 1e3), 1e-5), r
            assert r["relative_error"]["out"] < 1e-5, r
    print(f"sweep: {len(points)} head dims, FLOPs counted with the real D")


with tempfile.TemporaryDirectory() as folder:
    check_trace(Path(folder))
    check_roofline(Path(folder))
    check_sweep()
print("tools: all checks passed")
