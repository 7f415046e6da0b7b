#!/usr/bin/env python3
"""A per-phase timeline of the Hopper forward kernel: where a tile boundary's time goes.

  python3 bench/sm90_timeline.py --timeline DIR/timeline/libsm90timeline.so
                                 --plain DIR/plain/libsm90timeline.so --out RESULTS_DIR
      [--extra NAME=LIB ...]   (more uninstrumented shims, e.g. a variant, timed in the same turns)
  python3 bench/sm90_timeline.py --analyze RESULTS_DIR   (re-reads the saved records, no GPU)

The timeline shim (bench/sm90_timeline_build.sh: the kernels built with FATTN_SM90_TIMELINE,
src/cuda/sm90/timeline.cuh) stores a clock64 stamp at each phase boundary of one thread per
warpgroup. For each problem (bf16, B·N = 16384, H·D = 2048: D = 128 N = 1k non-causal, D = 64
N = 1k causal by default; D = 64, 128 and 256 built) this script
  - checks the instrumented kernel's output against the uninstrumented one (bitwise) and an fp32
    SDPA reference (relative error),
  - times, in turns (kernel_bench_common.time_in_turns), the uninstrumented kernel, the
    instrumented one recording and with recording off, and SDPA's cuDNN backend,
  - records one launch and writes records-<point>.{json,bin} (raw), trace-<point>.json (Chrome
    trace / Perfetto: one process per CTA, one thread per warpgroup, the first TRACE_CTAS CTAs)
    and summary-<point>.txt / .json: the steady key step, the tile-boundary cost split by phase,
    the tensor pipe's idle gaps, the producer's waits.

Times are SM clocks (clock64). A key step is one key tile (128 keys; 80 at D = 256) of one consumer; the CTA's step is
the period of a consumer's step while all consumers run (ping-pong interleaves them).
"""

import argparse
import array
import ctypes
import json
import lzma
import os
import statistics
import sys

# Event codes of src/cuda/sm90/timeline.cuh.
TRACK_START, SM_ID, TRACK_END = 1, 2, 3
TILE_START, Q_READY, LOADS_READY, TURN_TAKEN, GEMMS_ISSUED = 10, 11, 12, 13, 14
SCORES_WAITED, SOFTMAX_DONE, PV_WAITED, STEP_END, EPILOGUE_DONE = 15, 16, 17, 18, 19
# Kernels without the pinned P·V wait stamp the softmax and that wait as one (timeline.cuh).
SOFTMAX_AND_PV = 20
# Inside the TMA-store epilogue (builds from after the seventh session's first call).
LSE_STORED, OUTPUT_BUFFER_FREE, OUTPUT_STAGED, OUTPUT_STAGED_BARRIER, STORE_ISSUED = 21, 22, 23, 24, 25
P_TILE_START, Q_EMPTY_WAITED, Q_ISSUED, K_EMPTY_WAITED, K_ISSUED, V_EMPTY_WAITED = 30, 31, 32, 33, 34, 35

# The phase that ends at each event (the span from the track's previous record to this one).
CONSUMER_PHASES = {
    TILE_START: "tile start", Q_READY: "wait Q", LOADS_READY: "wait K/V", TURN_TAKEN: "wait turn",
    GEMMS_ISSUED: "issue GEMMs", SCORES_WAITED: "wait QK", SOFTMAX_DONE: "softmax",
    PV_WAITED: "wait PV", STEP_END: "rescale+convert", EPILOGUE_DONE: "epilogue",
    SOFTMAX_AND_PV: "softmax+wait PV",
    LSE_STORED: "epilogue: LSE", OUTPUT_BUFFER_FREE: "epilogue: O buffer free",
    OUTPUT_STAGED: "epilogue: stage O + fence", OUTPUT_STAGED_BARRIER: "epilogue: barrier",
    STORE_ISSUED: "epilogue: TMA store issue",
}
PRODUCER_PHASES = {
    P_TILE_START: "next tile", Q_EMPTY_WAITED: "wait Q free", Q_ISSUED: "issue Q",
    K_EMPTY_WAITED: "wait K slot", K_ISSUED: "issue K", V_EMPTY_WAITED: "wait V slot",
}
RECORD_WORDS = 4          # clock, event, argument, unused (timeline.cuh Record)
CLOCK_WRAP = 1 << 32      # the 32-bit %clock
TRACE_CTAS = 4            # CTAs written to the Chrome trace (all go into the summary)
# Dense bf16 wgmma rate of one Hopper SM: 4 tensor cores x 512 FMA per clock.
TENSOR_FLOP_PER_CLOCK = 4096
ROWS_PER_CONSUMER = 64
# Key tile per head-dim bucket (tile_config.hpp).
BLOCK_N = {64: 128, 128: 128, 256: 80}
# GPU clocks of sleep queued before each timed batch, so that the host (ctypes, tensor maps)
# enqueues the whole batch before it starts (as bench/sm90_vs_cudnn.py --prefill).
PREFILL_CYCLES = 4_000_000
TIMING_RUNS = 2           # each a full time_in_turns: their spread is the noise
FALLBACK_CLOCK_GHZ = 1.755
POINTS = [(128, 1024, False), (64, 1024, True)]


def point_name(D, N, causal):
    return f"d{D}-n{N}-{'causal' if causal else 'full'}"


# ---------------------------------------------------------------- parsing

def parse_tracks(meta, blob):
    """{(cta, track): [(clock, event, argument), ...]} from the saved records."""
    words = array.array("I")
    words.frombytes(blob)
    tracks = {}
    for cta, track, offset, count in meta["tracks"]:
        rows, wraps, previous = [], 0, None
        for i in range(offset, offset + count):
            w = words[RECORD_WORDS * i: RECORD_WORDS * i + RECORD_WORDS]
            if previous is not None and w[0] < previous:
                wraps += 1
            previous = w[0]
            rows.append((w[0] + wraps * CLOCK_WRAP, w[1], w[2]))
        tracks[(cta, track)] = rows
    return tracks


def consumer_tiles(rows):
    """A consumer track as a list of tiles: {'tile', 'start', 'events': [(clock, event, arg)],
    'steps': number of key tiles walked}."""
    tiles = []
    for clock, event, arg in rows:
        if event == TILE_START:
            tiles.append({"tile": arg, "start": clock, "events": [(clock, event, arg)]})
        elif tiles and event not in (TRACK_END, TRACK_START, SM_ID):
            tiles[-1]["events"].append((clock, event, arg))
    for t in tiles:
        steps = [a for _, e, a in t["events"] if e in (SOFTMAX_DONE, SOFTMAX_AND_PV)]
        t["steps"] = max(steps) + 1 if steps else 0
    return tiles


def find(events, event, arg):
    for clock, e, a in events:
        if e == event and a == arg:
            return clock
    return None


STEP_EVENTS = (LOADS_READY, TURN_TAKEN, GEMMS_ISSUED, SCORES_WAITED, SOFTMAX_DONE, PV_WAITED,
               STEP_END, SOFTMAX_AND_PV)


def softmax_end(events, step):
    """The stamp that closes a step's softmax (the step's anchor)."""
    clock = find(events, SOFTMAX_DONE, step)
    return clock if clock is not None else find(events, SOFTMAX_AND_PV, step)


def gemms_end(events, step):
    """The stamp by which the GEMMs issued at `step` are known to be done."""
    if step == 0:
        return find(events, SCORES_WAITED, 0)
    clock = find(events, PV_WAITED, step)
    return clock if clock is not None else find(events, SOFTMAX_AND_PV, step)


def phases_between(events, begin, end, tag=lambda event, arg: ""):
    """[(phase, clocks)] of the spans ending at events in (begin, end]; tag(event, arg) is
    appended to the phase's name."""
    out = []
    for (c0, _, _), (c1, e1, a1) in zip(events, events[1:]):
        if c1 <= begin or c1 > end or c0 < begin:
            continue
        out.append((CONSUMER_PHASES.get(e1, str(e1)) + tag(e1, a1), c1 - c0))
    return out


def boundary_phases(t, u, a, b):
    """The phases from tile t's last softmax (clock a) to tile u's first (clock b): the last
    steady step's tail, the last P·V alone, the epilogue, the next tile's start and first Q·Kᵀ."""
    last = t["steps"]
    parts = phases_between(t["events"], a, float("inf"),
                           lambda e, s: " [last PV]" if e in STEP_EVENTS and s == last else "")
    epilogue_end = t["events"][-1][0]
    parts.append(("tile start", u["start"] - epilogue_end))
    parts += phases_between(u["events"], u["start"], b,
                            lambda e, s: " [first QK]" if e in STEP_EVENTS and s == 0 else "")
    return parts


# ---------------------------------------------------------------- analysis

def median(values):
    return statistics.median(values) if values else float("nan")


def analyze(meta, tracks):
    D, N, causal = meta["D"], meta["N"], meta["causal"]
    consumers = meta["consumers"]
    lines = []
    result = {"point": meta["name"], "consumers": consumers}
    ctas = sorted({cta for cta, _ in tracks})

    # Clock rate from each track's globaltimer stamps (ns) and clock64.
    rates = []
    for rows in tracks.values():
        start = [(c, a) for c, e, a in rows if e == TRACK_START]
        end = [(c, a) for c, e, a in rows if e == TRACK_END]
        if start and end:
            dns = (end[0][1] - start[0][1]) & 0xFFFFFFFF
            if dns > 0:
                rates.append((end[0][0] - start[0][0]) / dns)
    # A full track (long problems) has no end stamp: then the H100's boost clock stands in.
    clock_ghz = median(rates) if rates else FALLBACK_CLOCK_GHZ
    result["clock_ghz"] = clock_ghz

    # Per consumer track: tiles, steady steps, boundaries.
    steady_periods, steady_phase = [], {}
    boundary_totals, boundary_phase = [], {}
    tile_fixed = []
    all_tiles = {}
    for (cta, track), rows in tracks.items():
        if track == 0:
            continue
        tiles = consumer_tiles(rows)
        all_tiles[(cta, track)] = tiles
        for t in tiles:
            ev = t["events"]
            n = t["steps"]
            # Steady key steps: softmax to softmax between interior steps of the same tile.
            for i in range(1, n - 1):
                a, b = softmax_end(ev, i), softmax_end(ev, i + 1)
                if a is not None and b is not None:
                    steady_periods.append(b - a)
                    for phase, clocks in phases_between(ev, a, b):
                        steady_phase.setdefault(phase, []).append(clocks)
        for t, u in zip(tiles, tiles[1:]):
            if t["steps"] == 0 or u["steps"] == 0:
                continue
            a = softmax_end(t["events"], t["steps"] - 1)
            b = softmax_end(u["events"], 0)
            if a is None or b is None:
                continue
            boundary_totals.append(b - a)
            parts = {}
            for phase, clocks in boundary_phases(t, u, a, b):
                parts[phase] = parts.get(phase, 0) + clocks
            for phase, clocks in parts.items():
                boundary_phase.setdefault(phase, []).append(clocks)
            tile_fixed.append((u["start"] - t["start"], t["steps"]))
    step = median(steady_periods)
    result["steady_step_clocks"] = step
    result["steady_step_phases"] = {p: median(v) for p, v in steady_phase.items()}
    bmed = median(boundary_totals)
    result["boundary_clocks"] = bmed
    result["boundary_excess_clocks"] = bmed - step
    result["boundary_phases"] = {p: median(v) for p, v in boundary_phase.items()}
    result["boundary_phases_mean"] = {p: statistics.mean(v) for p, v in boundary_phase.items()}
    # Fixed cost per tile in key steps: tile start to next tile start minus steps x steady step.
    fixed = [(span - n * step) / step for span, n in tile_fixed if n > 0]
    result["tile_fixed_cost_steps"] = median(fixed)
    result["tile_fixed_cost_steps_mean"] = statistics.mean(fixed) if fixed else float("nan")

    # Tensor pipe: busy intervals [issued, last wait of that issue] of all consumers of a CTA.
    flop_per_step = 2 * 2 * ROWS_PER_CONSUMER * BLOCK_N[D] * D
    floor_step = flop_per_step / TENSOR_FLOP_PER_CLOCK  # one consumer's two GEMMs
    result["tensor_floor_consumer_step_clocks"] = floor_step
    idle_boundary, idle_steady, spans, busy_floor = [], [], [], []
    for cta in ctas:
        intervals, windows, gemm_steps = [], [], 0
        first, last = None, None
        for track in range(1, consumers + 1):
            tiles = all_tiles.get((cta, track), [])
            for t in tiles:
                ev = t["events"]
                n = t["steps"]
                first = t["start"] if first is None else min(first, t["start"])
                for i in range(n + 1):
                    issued = find(ev, GEMMS_ISSUED, i)
                    done = gemms_end(ev, i)
                    if issued is not None and done is not None:
                        intervals.append((issued, done))
                gemm_steps += n
                end = find(ev, EPILOGUE_DONE, 0)
                if end is not None:
                    last = end if last is None else max(last, end)
            for t, u in zip(tiles, tiles[1:]):
                a = softmax_end(t["events"], max(t["steps"] - 1, 0))
                b = softmax_end(u["events"], 0)
                if a is not None and b is not None:
                    windows.append((a, b))
        if first is None or last is None or not intervals:
            continue
        intervals.sort()
        gaps, cursor = [], first
        for s, e in intervals:
            if s > cursor:
                gaps.append((cursor, s))
            cursor = max(cursor, e)
        if last > cursor:
            gaps.append((cursor, last))
        at_boundary = sum(e - s for s, e in gaps if any(s < wb and e > wa for wa, wb in windows))
        idle_boundary.append(at_boundary)
        idle_steady.append(sum(e - s for s, e in gaps) - at_boundary)
        spans.append(last - first)
        busy_floor.append(gemm_steps * floor_step)
    result["cta_span_clocks"] = median(spans)
    result["tensor_floor_share"] = median([b / s for b, s in zip(busy_floor, spans)])
    result["idle_at_boundaries_share"] = median([i / s for i, s in zip(idle_boundary, spans)])
    result["idle_steady_share"] = median([i / s for i, s in zip(idle_steady, spans)])
    tiles_per_cta = median([len(all_tiles.get((cta, 1), [])) for cta in ctas])
    result["tiles_per_cta"] = tiles_per_cta

    # The grid's tail: CTAs ending at different times (globaltimer, ns; one consumer per CTA).
    starts_ns, ends_ns = [], []
    for (cta, track), rows in tracks.items():
        if track != 1:
            continue
        s0 = [a for _, e, a in rows if e == TRACK_START]
        e0 = [a for _, e, a in rows if e == TRACK_END]
        if s0 and e0:
            starts_ns.append(s0[0])
            ends_ns.append(s0[0] + ((e0[0] - s0[0]) & 0xFFFFFFFF))
    if starts_ns:
        first_ns = min(starts_ns)
        result["kernel_span_us"] = (max(ends_ns) - first_ns) / 1000
        result["cta_end_spread_us"] = (max(ends_ns) - min(ends_ns)) / 1000
        result["mean_cta_busy_share"] = statistics.mean(
            (e - first_ns) / (max(ends_ns) - first_ns) for e in ends_ns)

    # One track's boundaries one by one (CTA 0, consumer 0).
    example = []
    tiles0 = all_tiles.get((min(ctas), 1), []) if ctas else []
    for t, u in zip(tiles0, tiles0[1:]):
        a = softmax_end(t["events"], t["steps"] - 1) if t["steps"] else None
        b = softmax_end(u["events"], 0) if u["steps"] else None
        if a is None or b is None:
            continue
        parts = boundary_phases(t, u, a, b)
        example.append((t["tile"], t["steps"], u["tile"], u["steps"], b - a, parts))

    # Producer: how long Q took from issue to the consumers, and the ring waits.
    q_latency, k_slot, v_slot = [], [], []
    for (cta, track), rows in tracks.items():
        if track != 0:
            continue
        issued = {}
        current = None
        prev = None
        for clock, event, arg in rows:
            if event == P_TILE_START:
                current = arg
            elif event == Q_ISSUED:
                issued[current] = clock
            elif event == K_EMPTY_WAITED and prev is not None:
                k_slot.append(clock - prev)
            elif event == V_EMPTY_WAITED and prev is not None:
                v_slot.append(clock - prev)
            prev = clock
        for t in all_tiles.get((cta, 1), []):
            q = find(t["events"], Q_READY, 0)
            if t["tile"] in issued and q is not None:
                q_latency.append(q - issued[t["tile"]])
    result["q_issue_to_ready_clocks"] = median(q_latency)
    result["producer_k_slot_wait_clocks"] = median(k_slot)
    result["producer_v_slot_wait_clocks"] = median(v_slot)

    # Text.
    ck = lambda x: f"{x:7.0f}"
    lines.append(f"{meta['name']}: bf16 B={meta['B']} H={meta['H']} N={N} D={D} "
                 f"{'causal' if causal else 'non-causal'}; {len(ctas)} CTAs recorded, "
                 f"{consumers} consumers, median {tiles_per_cta} tiles per CTA; SM clock "
                 f"{clock_ghz:.3f} GHz (clock64 / globaltimer)")
    for run in meta.get("tflops_runs", []):
        lines.append("TFLOP/s in turns: " + ", ".join(f"{k} {v:.1f}" for k, v in run.items()) +
                     "; /plain: " + ", ".join(f"{k} {v / run['plain']:.3f}" for k, v in run.items()
                                             if k != "plain"))
    if meta.get("extras_bitwise_equal"):
        lines.append(f"extra shims' outputs bitwise equal to plain: {meta['extras_bitwise_equal']}")
    if "rel_error_vs_fp32_sdpa" in meta:
        lines.append(f"output: bitwise equal to the uninstrumented kernel's "
                     f"{meta['bitwise_equal_to_plain']}, relative error vs fp32 SDPA "
                     f"{meta['rel_error_vs_fp32_sdpa']:.2e}")
    lines.append("")
    lines.append(f"steady key step (consumer softmax to softmax, interior steps, median of "
                 f"{len(steady_periods)}): {step:.0f} clocks; tensor floor of the CTA's step "
                 f"({consumers} consumers x {floor_step:.0f}) = {consumers * floor_step:.0f}, "
                 f"i.e. the tensor pipe {100 * consumers * floor_step / step:.0f} % busy in the "
                 f"steady state")
    lines.append("  phases of a steady step (median each; they need not add up):")
    for p, v in sorted(result["steady_step_phases"].items(), key=lambda x: -x[1]):
        lines.append(f"    {p:<18}{ck(v)}")
    lines.append("")
    lines.append(f"tile boundary (last step's softmax to the next tile's first softmax, median of "
                 f"{len(boundary_totals)}): {bmed:.0f} clocks = 1 steady step + "
                 f"{bmed - step:.0f} ({(bmed - step) / step:.2f} steps)")
    lines.append("  phases inside it (median / mean over boundaries, summed per boundary):")
    for p, v in sorted(result["boundary_phases_mean"].items(), key=lambda x: -x[1]):
        lines.append(f"    {p:<18}{ck(result['boundary_phases'][p])} / {ck(v)}")
    lines.append(f"fixed cost per tile (tile start to next tile start minus steps x steady step): "
                 f"median {result['tile_fixed_cost_steps']:.2f}, mean "
                 f"{result['tile_fixed_cost_steps_mean']:.2f} key steps")
    lines.append("")
    lines.append(f"tensor pipe, per CTA (median): span {result['cta_span_clocks']:.0f} clocks; "
                 f"GEMM floor {100 * result['tensor_floor_share']:.1f} % of it; no consumer "
                 f"between issue and wait: {100 * result['idle_at_boundaries_share']:.1f} % at tile "
                 f"boundaries, {100 * result['idle_steady_share']:.1f} % elsewhere (a lower bound "
                 f"of the pipe's idle time: a wait may come after its GEMM ended)")
    if "kernel_span_us" in result:
        lines.append(f"grid: kernel span {result['kernel_span_us']:.1f} us (recorded CTAs), CTA ends "
                     f"spread over {result['cta_end_spread_us']:.1f} us, CTAs busy "
                     f"{100 * result['mean_cta_busy_share']:.1f} % of the span on average")
    lines.append(f"producer: Q issue to consumers' Q ready {result['q_issue_to_ready_clocks']:.0f}; "
                 f"wait for a K slot {result['producer_k_slot_wait_clocks']:.0f}, for a V slot "
                 f"{result['producer_v_slot_wait_clocks']:.0f} clocks (median)")
    if example:
        lines.append("")
        lines.append(f"CTA {min(ctas)} consumer 0, boundary by boundary (tile: key steps; clocks; "
                     f"the largest parts):")
        for tile, n, tile2, n2, total, parts in example:
            top = sorted(parts, key=lambda x: -x[1])[:6]
            lines.append(f"  {tile}:{n} -> {tile2}:{n2}  {total:6d}  " +
                         ", ".join(f"{p} {c}" for p, c in top))
    return result, "\n".join(lines) + "\n"


def chrome_trace(meta, tracks, clock_ghz):
    events = []
    starts = {}
    for (cta, track), rows in tracks.items():
        for c, e, a in rows:
            if e == TRACK_START:
                starts[(cta, track)] = (c, a)
    base_ns = min(a for _, a in starts.values()) if starts else 0
    for (cta, track), rows in sorted(tracks.items()):
        if cta >= TRACE_CTAS or (cta, track) not in starts:
            continue
        c0, ns0 = starts[(cta, track)]
        offset_us = ((ns0 - base_ns) & 0xFFFFFFFF) / 1000.0
        to_us = lambda c: offset_us + (c - c0) / clock_ghz / 1000.0
        sm = next((a for _, e, a in rows if e == SM_ID), -1)
        name = "producer" if track == 0 else f"consumer {track - 1}"
        events.append({"ph": "M", "name": "process_name", "pid": cta,
                       "args": {"name": f"CTA {cta} (SM {sm})"}})
        events.append({"ph": "M", "name": "thread_name", "pid": cta, "tid": track,
                       "args": {"name": name}})
        phases = PRODUCER_PHASES if track == 0 else CONSUMER_PHASES
        tile = None
        for (ca, _, _), (cb, eb, ab) in zip(rows, rows[1:]):
            if eb in (TILE_START, P_TILE_START):
                tile = ab
            if eb not in phases:
                continue
            events.append({"ph": "X", "name": phases[eb], "pid": cta, "tid": track,
                           "ts": round(to_us(ca), 4), "dur": round((cb - ca) / clock_ghz / 1000.0, 4),
                           "args": {"step": ab, "tile": tile, "clocks": cb - ca}})
    return {"traceEvents": events, "displayTimeUnit": "ns",
            "otherData": {"point": meta["name"], "clock_ghz": clock_ghz}}


def write_outputs(out_dir, meta, tracks):
    result, text = analyze(meta, tracks)
    name = meta["name"]
    with open(os.path.join(out_dir, f"summary-{name}.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(out_dir, f"summary-{name}.json"), "w") as f:
        json.dump({**result, "meta": {k: v for k, v in meta.items() if k != "tracks"}}, f, indent=1)
    with open(os.path.join(out_dir, f"trace-{name}.json"), "w") as f:
        json.dump(chrome_trace(meta, tracks, result["clock_ghz"]), f)
    print(text)


def analyze_saved(out_dir):
    for entry in sorted(os.listdir(out_dir)):
        if not (entry.startswith("records-") and entry.endswith(".json")):
            continue
        name = entry[len("records-"):-len(".json")]
        meta_path = os.path.join(out_dir, entry)
        with open(meta_path) as f:
            meta = json.load(f)
        path = os.path.join(out_dir, f"records-{name}.bin")
        if os.path.exists(path):
            with open(path, "rb") as f:
                blob = f.read()
        else:  # as kept in the repository
            with lzma.open(path + ".xz") as f:
                blob = f.read()
        write_outputs(out_dir, meta, parse_tracks(meta, blob))


# ---------------------------------------------------------------- GPU side

def run_point(torch, common, plain, timeline, extras, out_dir, D, N, causal, reps,
              ctas_per_sm=1):
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    B, H = 16384 // N, 2048 // D
    gen = torch.Generator(device="cuda")
    gen.manual_seed(D * 7 + N + int(causal))
    q, k, v = (common.make("bf16", B, N, H, D, "bshd", gen) for _ in range(3))
    scale = D ** -0.5
    error = ctypes.create_string_buffer(common.ERROR_BYTES)
    outs = {}

    def launcher(lib, out, lse):
        fn = lib.fattn_sm90_forward
        return lambda: common.call_forward(fn, error, q, k, v, out, lse, "bf16", scale, causal, -1, -1)

    # Kernels of several CTAs per SM (the co-resident shape of
    # bench/results/sm90-fwd-h100-2026-11-23-s10/co-resident.patch): every CTA records.
    sms = torch.cuda.get_device_properties(0).multi_processor_count * ctas_per_sm
    tracks_per_cta = timeline.fattn_sm90_timeline_tracks()
    capacity = timeline.fattn_sm90_timeline_capacity()
    records = torch.zeros(sms * tracks_per_cta * capacity * RECORD_WORDS, dtype=torch.int32,
                          device="cuda")
    set_buffer = lambda on: timeline.fattn_sm90_timeline_set(
        ctypes.c_void_p(records.data_ptr() if on else 0), sms)

    for name, lib in (("plain", plain), ("timeline", timeline)):
        out = torch.full_like(q, float("nan"))
        lse = torch.full((B, H, N), float("nan"), device="cuda")
        if name == "timeline":
            set_buffer(True)
        launcher(lib, out, lse)()
        torch.cuda.synchronize()
        outs[name] = (out, lse)
    identical = bool(torch.equal(outs["plain"][0], outs["timeline"][0]) and
                     torch.equal(outs["plain"][1], outs["timeline"][1]))
    qt, kt, vt = (x.transpose(1, 2).float() for x in (q, k, v))
    with sdpa_kernel(SDPBackend.MATH):
        ref = F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal, scale=scale)
    ref = ref.transpose(1, 2)
    got = outs["timeline"][0].float()
    rel = float((got - ref).norm() / ref.norm())
    finite = bool(torch.isfinite(got).all() and torch.isfinite(outs["timeline"][1]).all())
    del ref, qt, kt, vt

    # The recorded launch: a fresh buffer, after warm launches.
    set_buffer(True)
    run_timeline = launcher(timeline, *outs["timeline"])
    for _ in range(3):
        run_timeline()
    records.zero_()
    run_timeline()
    torch.cuda.synchronize()

    host = records.view(sms, tracks_per_cta, capacity, RECORD_WORDS).cpu()
    events = host[..., 1]
    meta_tracks, chunks, offset = [], [], 0
    for cta in range(sms):
        for track in range(tracks_per_cta):
            count = int((events[cta, track] != 0).sum())
            if count == 0:
                continue
            chunk = host[cta, track, :count].contiguous()
            chunks.append(ctypes.string_at(chunk.data_ptr(), chunk.numel() * 4))
            meta_tracks.append([cta, track, offset, count])
            offset += count

    # Timing in turns: plain, timeline recording, timeline not recording, cuDNN.
    qc, kc, vc = (x.transpose(1, 2).contiguous() for x in (q, k, v))
    cudnn = lambda: F.scaled_dot_product_attention(qc, kc, vc, is_causal=causal, scale=scale)
    run_plain = launcher(plain, *outs["plain"])

    def timeline_off():
        set_buffer(False)
        run_timeline()

    def timeline_on():
        set_buffer(True)
        run_timeline()

    contestants = [("plain", run_plain, None), ("timeline", timeline_on, None),
                   ("timeline-off", timeline_off, None)]
    # Other builds of the uninstrumented shim (variants): checked bitwise against "plain" first.
    extra_equal = {}
    for extra_name, lib in extras.items():
        out = torch.full_like(q, float("nan"))
        lse = torch.full((B, H, N), float("nan"), device="cuda")
        run_extra = launcher(lib, out, lse)
        run_extra()
        torch.cuda.synchronize()
        extra_equal[extra_name] = bool(torch.equal(out, outs["plain"][0]) and
                                       torch.equal(lse, outs["plain"][1]))
        contestants.append((extra_name, run_extra, None))
    try:
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            cudnn()
        contestants.append(("cudnn", cudnn, lambda: sdpa_kernel(SDPBackend.CUDNN_ATTENTION)))
    except RuntimeError as e:  # a torch without cuDNN attention: time ours alone
        print(f"cudnn left out: {e}")
    flops = 4 * B * H * N * N * D / (2 if causal else 1)
    tflops, runs = common.tflops_in_turns(contestants, flops, TIMING_RUNS, reps,
                                          prefill_cycles=PREFILL_CYCLES)
    set_buffer(False)

    name = point_name(D, N, causal)
    meta = {"name": name, "D": D, "N": N, "B": B, "H": H, "causal": causal,
            "consumers": (1 if ctas_per_sm > 1
                          else (192 if D == 64 else 128) // ROWS_PER_CONSUMER),
            "ctas_per_sm": ctas_per_sm,
            "device": torch.cuda.get_device_name(0), "sms": sms, "tracks": meta_tracks,
            "tflops": tflops, "tflops_runs": runs, "bitwise_equal_to_plain": identical,
            "rel_error_vs_fp32_sdpa": rel, "finite": finite, "extras_bitwise_equal": extra_equal}
    blob = b"".join(chunks)
    with open(os.path.join(out_dir, f"records-{name}.json"), "w") as f:
        json.dump(meta, f)
    with open(os.path.join(out_dir, f"records-{name}.bin"), "wb") as f:
        f.write(blob)
    print(f"{name}: bitwise equal to plain {identical}, rel error {rel:.2e}, finite {finite}; "
          + ", ".join(f"{k2} {v2:.1f}" for k2, v2 in tflops.items()) + " TFLOP/s")
    try:
        write_outputs(out_dir, meta, parse_tracks(meta, blob))
    except Exception as e:  # noqa: BLE001 - the summary assumes one-CTA shapes; keep the records
        print(f"{name}: summary failed ({type(e).__name__}: {e}); raw records kept")
    return identical and finite and rel < common.TOLERANCE["bf16"] and all(extra_equal.values())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--timeline", help="the shim built with FATTN_SM90_TIMELINE")
    parser.add_argument("--plain", help="the same shim built without it")
    parser.add_argument("--out", required=False, help="results folder")
    parser.add_argument("--extra", action="append", default=[],
                        help="NAME=LIB: another uninstrumented shim timed in the same turns")
    parser.add_argument("--analyze", help="re-analyze the records saved in this folder")
    parser.add_argument("--ctas-per-sm", type=int, default=1,
                        help="CTAs per SM of the kernels at these points (2: the co-resident "
                             "shapes); every CTA records. The summary assumes 1")
    parser.add_argument("--reps", type=int, default=10, help="timing rounds (in turns)")
    parser.add_argument("--points", default=";".join(f"{D},{N},{int(c)}" for D, N, c in POINTS),
                        help="D,N,causal;... (a track holds %d records: beyond N = 4k the "
                             "records stop early, the timing does not)" % 4096)
    args = parser.parse_args()
    if args.analyze:
        analyze_saved(args.analyze)
        return 0
    import torch
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import kernel_bench_common as common
    os.makedirs(args.out, exist_ok=True)
    libs = {}
    for key in ("plain", "timeline"):
        lib = common.load_forward_shim(getattr(args, key))
        lib.fattn_sm90_timeline_set.argtypes = [ctypes.c_void_p, ctypes.c_int]
        libs[key] = lib
    extras = {}
    for item in args.extra:
        extra_name, path = item.split("=", 1)
        extras[extra_name] = common.load_forward_shim(path)
    if libs["timeline"].fattn_sm90_timeline_tracks() == 0:
        raise SystemExit("--timeline: that shim was built without FATTN_SM90_TIMELINE")
    ok = True
    points = [tuple(int(x) for x in p.split(",")) for p in args.points.split(";") if p]
    for D, N, causal in points:
        causal = bool(causal)
        ok &= run_point(torch, common, libs["plain"], libs["timeline"], extras, args.out, D, N, causal,
                        args.reps, args.ctas_per_sm)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
