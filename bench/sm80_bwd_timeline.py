#!/usr/bin/env python3
"""A per-phase timeline of the sm80 backward main kernel: the order of phases inside a query step.

  python3 bench/sm80_bwd_timeline.py --timeline DIR/timeline/libsm80bwdtimeline.so
                                     --plain DIR/plain/libsm80bwdtimeline.so --out RESULTS_DIR
      [--extra NAME=LIB ...]   (more uninstrumented shims, e.g. a variant, timed in the same turns)
      [--variant 90]           (the shims' candidate tile instead of the table, instrumented and
                                plain; the plain table is timed beside them as "table")
  python3 bench/sm80_bwd_timeline.py --analyze RESULTS_DIR   (re-reads saved stamps, no GPU:
                                                              summary-*-saved.*, trace-*-saved)

The timeline shim (bench/sm80_bwd_timeline_build.sh: the kernels built with
FATTN_SM80_BWD_TIMELINE, src/cuda/sm80/backward_timeline.cuh) stores a %clock stamp at each phase
boundary of each query step, from lane 0 of every warp of every CTA. For each point (bf16,
B·N = 16384, H·D = 2048; default D = 128 and 256 at N = 4096, non-causal) this script
  - runs the backward after PyTorch's flash forward (its out and LSE) with the plain shim, the
    timeline shim, and FA2's own backward (aten's flash backward), checks dK and dV of the
    instrumented kernel bitwise against the plain one (dQ is summed by atomics in any order) and
    all three against each other by relative error,
  - times, in turns (kernel_bench_common.time_in_turns), the plain backward, the instrumented one
    recording and not recording, FA2's backward, and --extra shims,
  - records one launch and writes stamps-<point>.npz (the first SAVED_CTAS CTAs, raw),
    trace-<point>.json (Chrome trace / Perfetto: one process per CTA, one thread per warp, the
    first TRACE_CTAS CTAs) and summary-<point>.txt / .json computed from every CTA: per-warp time
    per phase, the two barriers' waits and who they wait for, the step time and its critical path
    (non-causal points), and for every point the steps by kind (diagonal items that run the masked
    pass, first unmasked, steady, last), the SM time by part (prologue, epilogue, items) and the
    kernel's tail from each CTA's SM and global-timer span, with list-scheduled spans of the
    measured CTA durations in other orders (kinds-<point>.npz keeps the per-CTA arrays).

Clocks are the instrumented kernel's SM clocks; read them as proportions of its step (the plain
kernel's step is the recording's step times plain/timeline TFLOP/s).
"""

import argparse
import ctypes
import json
import os
import sys

import numpy as np

# src/cuda/sm80/backward_timeline.cuh
EVENTS = ["copies waited", "top barrier", "next copies issued", "S issued", "P stored",
          "dP issued", "dS stored", "score barrier", "phase B issued", "dQ product issued",
          "REDGs issued"]
(COPIES_WAITED, TOP_BARRIER, NEXT_COPIES, S_ISSUED, P_STORED, DP_ISSUED, DS_STORED,
 SCORE_BARRIER, PHASE_B, DQ_PRODUCT, REDGS) = range(len(EVENTS))
ITEM_EVENTS = len(EVENTS)
SM_PLUS_ONE, START_NS, END_NS, START_CLOCK, KEY_TILE_ISSUED, LOOP_END, END_CLOCK, ITEMS = range(8)
HEADER_SLOTS = 8
ITEM_STRIDE = 16
# The phase each stamp closes (the span since the warp's previous stamp). The loop top's first
# part ("REDG drain + wait copies": the previous item's last stamp to this item's copies waited)
# holds the register hazard on the REDGs' sources and cp.async.wait_all.
PHASES = ["REDG drain + wait copies", "top barrier", "issue next copies", "S = K·Qᵀ issue",
          "P (wait S, exp, store)", "dP = V·dOᵀ issue", "dS (wait dP, store)", "score barrier",
          "phase B (dV, dK)", "dQ product", "REDG issue"]
WARPS = 8
TRACE_CTAS = 4            # CTAs written to the Chrome trace (all go into the summary)
SAVED_CTAS = 132          # CTAs whose raw stamps are saved (one wave on an H100)
STEADY_SKIP = 2           # items left out at each end of a CTA's walk (start-up, drain)
CLOCK_WRAP = 1 << 32
# Dense bf16 rate of one Hopper SM with wgmma (4 tensor cores x 512 FMA per clock); mma.sync
# reaches a part of it, so the floor below is a bound, not a target.
TENSOR_FLOP_PER_CLOCK = 4096
GEMMS_PER_ITEM = 5        # Sᵀ, dPᵀ, dV, dK, dQ
PREFILL_CYCLES = 4_000_000
TIMING_RUNS = 2
POINTS = [(128, 4096, False), (256, 4096, False)]


def point_name(D, N, causal):
    return f"d{D}-n{N}-{'causal' if causal else 'full'}"


def block_n(D):
    return 128 if D <= 128 else 64


def block_m(D):
    """Query rows per item (backward_tile_config.hpp): 128 at 64 (FA2's tile), 64 at 128 and 256."""
    return 128 if D <= 64 else 64


# ---------------------------------------------------------------- analysis

def unwrap(stamps):
    """[ctas, warps, words] uint32 -> (header int64, items int64 [ctas, warps, items, events]),
    clocks relative to the CTA's earliest start (the warps of a CTA share the SM clock)."""
    header = stamps[..., :HEADER_SLOTS].astype(np.int64)
    items = stamps[..., HEADER_SLOTS:].reshape(stamps.shape[0], stamps.shape[1], -1, ITEM_STRIDE)
    items = items[..., :ITEM_EVENTS].astype(np.int64)
    base = header[..., START_CLOCK].min(axis=1)
    items_rel = (items - base[:, None, None, None]) % CLOCK_WRAP
    header_rel = header.copy()
    for slot in (START_CLOCK, KEY_TILE_ISSUED, LOOP_END, END_CLOCK):
        header_rel[..., slot] = (header[..., slot] - base[:, None]) % CLOCK_WRAP
    return header_rel, items_rel


def pct(values, q):
    return float(np.percentile(values, q)) if len(values) else float("nan")


def analyze_clock(stamps):
    """The instrumented kernel's SM clock (GHz), from the CTAs' clock and global-timer spans."""
    header, _ = unwrap(stamps)
    header = header[header[:, 0, SM_PLUS_ONE] > 0]
    ns_span = (header[..., END_NS] - header[..., START_NS]) % CLOCK_WRAP
    clock_span = header[..., END_CLOCK] - header[..., START_CLOCK]
    return {"clock_ghz": float(np.median(clock_span / np.maximum(ns_span, 1)))}


def analyze(meta, stamps):
    """The summary (dict) and its text, from every recorded CTA."""
    header, items = unwrap(stamps)
    recorded = header[:, 0, SM_PLUS_ONE] > 0
    header, items = header[recorded], items[recorded]
    ctas = items.shape[0]
    n_items = int(header[0, 0, ITEMS])
    lines = []
    out = {"ctas": ctas, "items_per_cta": n_items}
    ns_span = (header[..., END_NS] - header[..., START_NS]) % CLOCK_WRAP
    clock_span = header[..., END_CLOCK] - header[..., START_CLOCK]
    clock_ghz = float(np.median(clock_span / np.maximum(ns_span, 1)))
    out["clock_ghz"] = clock_ghz
    steady = slice(STEADY_SKIP, n_items - STEADY_SKIP)

    # Per-warp phase durations: [ctas, warps, items, phases].
    durations = np.empty(items.shape, dtype=np.int64)
    durations[..., 1:] = np.diff(items, axis=-1)
    durations[:, :, 0, 0] = items[:, :, 0, 0] - header[..., KEY_TILE_ISSUED]
    durations[:, :, 1:, 0] = items[:, :, 1:, COPIES_WAITED] - items[:, :, :-1, REDGS]
    d = durations[:, :, steady, :]
    step = np.diff(items[:, :, :, TOP_BARRIER].max(axis=1), axis=-1)[:, steady]
    step_median = float(np.median(step))
    out["step_clocks"] = {"median": step_median, "p10": pct(step, 10), "p90": pct(step, 90)}
    flops = GEMMS_PER_ITEM * 2 * block_m(meta["D"]) * block_n(meta["D"]) * meta["D"]
    floor = flops / TENSOR_FLOP_PER_CLOCK
    lines.append(f"{meta['name']}: {ctas} CTAs recorded, {n_items} items (query steps) each, "
                 f"clock {clock_ghz:.3f} GHz")
    lines.append(f"step (top barrier to top barrier, CTA): median {step_median:.0f} clocks "
                 f"(p10 {pct(step, 10):.0f}, p90 {pct(step, 90):.0f}); {flops / 1e6:.1f} MFLOP per "
                 f"step, {floor:.0f} clocks at the wgmma rate ({floor / step_median:.0%})")

    # Phases: per warp, median over CTAs and steady items; and the mean over all warps.
    lines.append("")
    lines.append("per-warp time per phase (clocks; median over CTAs and steady items; "
                 "'all' = mean of all warps)")
    lines.append(f"{'phase':28s} " + " ".join(f"{'w' + str(w):>6s}" for w in range(WARPS)) +
                 f" {'all':>6s} {'share':>6s}")
    phase_table = {}
    for p, name in enumerate(PHASES):
        per_warp = [float(np.median(d[:, w, :, p])) for w in range(WARPS)]
        mean_all = float(d[..., p].mean())
        phase_table[name] = {"per_warp_median": per_warp, "mean": mean_all}
        lines.append(f"{name:28s} " + " ".join(f"{v:6.0f}" for v in per_warp) +
                     f" {mean_all:6.0f} {mean_all / step_median:6.1%}")
    total = float(d.sum(axis=-1).mean())
    lines.append(f"{'sum (= step)':28s} {'':55s} {total:6.0f}")
    out["phases"] = phase_table

    # The two barriers: arrival spread and the last warp in.
    lines.append("")
    for name, arrive, leave in (("top barrier", COPIES_WAITED, TOP_BARRIER),
                                ("score barrier", DS_STORED, SCORE_BARRIER)):
        arrivals = items[:, :, steady, arrive]
        exits = items[:, :, steady, leave]
        skew = arrivals.max(axis=1) - arrivals.min(axis=1)
        release = exits.min(axis=1) - arrivals.max(axis=1)
        last = np.bincount(arrivals.argmax(axis=1).ravel(), minlength=WARPS)
        wait = (exits - arrivals).mean()
        lines.append(f"{name}: arrival spread median {np.median(skew):.0f} (p90 {pct(skew, 90):.0f}) "
                     f"clocks, last arrival to first exit {np.median(release):.0f}, mean wait per "
                     f"warp {wait:.0f}; last warp in: " +
                     " ".join(f"w{w} {c / last.sum():.0%}" for w, c in enumerate(last)))
        out[name] = {"spread_median": float(np.median(skew)), "spread_p90": pct(skew, 90),
                     "release_median": float(np.median(release)), "mean_wait": float(wait),
                     "last_warp_share": (last / last.sum()).tolist()}

    # The critical path of a step: the top barrier's exit (the last warp out) to the score
    # barrier's exit, then to the next top barrier's exit, each through the warp that arrived
    # last at the barrier that closes it.
    lines.append("")
    lines.append("critical path of a step (median clocks): the warp that arrives last at each "
                 "barrier, its phases since the barrier before")
    top_exit = items[:, :, :, TOP_BARRIER].max(axis=1)
    score_exit = items[:, :, :, SCORE_BARRIER].max(axis=1)
    last_score = items[:, :, :, DS_STORED].argmax(axis=1)
    last_top = items[:, :, :, COPIES_WAITED].argmax(axis=1)
    c_idx = np.arange(ctas)[:, None]
    i_idx = np.arange(n_items)[None, :]
    part_a = {}
    a_phases = [(NEXT_COPIES, "issue next copies"), (S_ISSUED, "S = K·Qᵀ issue"),
                (P_STORED, "P (wait S, exp, store)"), (DP_ISSUED, "dP = V·dOᵀ issue"),
                (DS_STORED, "dS (wait dP, store)")]
    critical = items[c_idx, last_score, i_idx]  # [ctas, items, events] of the last warp in
    prev = top_exit
    for e, name in a_phases:
        part_a[name] = float(np.median((critical[:, :, e] - prev)[:, steady]))
        prev = critical[:, :, e]
    part_a["score barrier release"] = float(np.median((score_exit - prev)[:, steady]))
    part_b = {}
    critical_b = items[c_idx[:, :], last_top[:, 1:], i_idx[:, :-1] + 1]  # next item's last warp in
    warp_prev = items[c_idx, last_top[:, 1:], i_idx[:, :-1]]  # the same warp, this item
    prev = score_exit[:, :-1]
    for e, name in ((PHASE_B, "phase B (dV, dK)"), (DQ_PRODUCT, "dQ product"),
                    (REDGS, "REDG issue")):
        part_b[name] = float(np.median((warp_prev[:, :, e] - prev)[:, steady]))
        prev = warp_prev[:, :, e]
    part_b["REDG drain + wait copies"] = float(
        np.median((critical_b[:, :, COPIES_WAITED] - prev)[:, steady]))
    part_b["top barrier release"] = float(
        np.median((top_exit[:, 1:] - critical_b[:, :, COPIES_WAITED])[:, steady]))
    for label, part in (("top barrier -> score barrier", part_a),
                        ("score barrier -> next top barrier", part_b)):
        lines.append(f"  {label}: {sum(part.values()):.0f}")
        for name, v in part.items():
            lines.append(f"    {name:30s} {v:6.0f} {v / step_median:6.1%}")
    out["critical_path"] = {"a": part_a, "b": part_b}

    # The item's end, where ncu put the extra samples: from the last REDG issue of any warp to
    # the next top barrier's exit, and how late the slowest warp's REDGs finish issuing.
    redg_last = items[:, :, :, REDGS].max(axis=1)[:, :-1]
    redg_first = items[:, :, :, REDGS].min(axis=1)[:, :-1]
    tail = (top_exit[:, 1:] - redg_last)[:, steady]
    redg_spread = (redg_last - redg_first)[:, steady]
    lines.append("")
    lines.append(f"item end: REDG issue spread over warps {np.median(redg_spread):.0f}, last REDG "
                 f"issued to next top-barrier exit {np.median(tail):.0f} clocks (median)")
    out["item_end"] = {"redg_spread": float(np.median(redg_spread)),
                       "last_redg_to_top_exit": float(np.median(tail))}

    # Kernel-level: the recorded CTAs' span, the prologue and the epilogue.
    prologue = (items[:, :, 0, COPIES_WAITED] - header[..., START_CLOCK]).ravel()
    epilogue = (header[..., END_CLOCK] - header[..., LOOP_END]).ravel()
    cta_clocks = (header[..., END_CLOCK].max(axis=1) - header[..., START_CLOCK].min(axis=1))
    lines.append(f"CTA: {np.median(cta_clocks):.0f} clocks (median), of which the prologue (start "
                 f"to the first item's copies) {np.median(prologue):.0f} and the epilogue (dK, dV "
                 f"stores) {np.median(epilogue):.0f}; {n_items} steps x {step_median:.0f} = "
                 f"{n_items * step_median:.0f}")
    out["cta"] = {"clocks": float(np.median(cta_clocks)), "prologue": float(np.median(prologue)),
                  "epilogue": float(np.median(epilogue))}
    start_ns = header[..., START_NS].min()
    end_ns = header[..., END_NS].max()
    out["recorded_span_us"] = float(((end_ns - start_ns) % CLOCK_WRAP) / 1000.0)
    return out, "\n".join(lines) + "\n"


def chrome_trace(meta, stamps, clock_ghz):
    header, items = unwrap(stamps[:TRACE_CTAS])
    events = []
    for cta in range(items.shape[0]):
        if header[cta, 0, SM_PLUS_ONE] == 0:
            continue
        sm = int(header[cta, 0, SM_PLUS_ONE]) - 1
        events.append({"ph": "M", "name": "process_name", "pid": cta,
                       "args": {"name": f"CTA {cta} (SM {sm})"}})
        n_items = int(header[cta, 0, ITEMS])
        for w in range(WARPS):
            events.append({"ph": "M", "name": "thread_name", "pid": cta, "tid": w,
                           "args": {"name": f"warp {w}"}})
            previous = header[cta, w, KEY_TILE_ISSUED]
            for i in range(n_items):
                for e in range(ITEM_EVENTS):
                    now = items[cta, w, i, e]
                    events.append({"ph": "X", "name": PHASES[e], "pid": cta, "tid": w,
                                   "ts": round(previous / clock_ghz / 1000.0, 4),
                                   "dur": round((now - previous) / clock_ghz / 1000.0, 4),
                                   "args": {"item": i, "clocks": int(now - previous)}})
                    previous = now
    return {"traceEvents": events, "displayTimeUnit": "ns",
            "otherData": {"point": meta["name"], "clock_ghz": clock_ghz}}


def write_outputs(out_dir, meta, stamps, suffix=""):
    kinds, kinds_text, compact = analyze_kinds(meta, stamps, meta["sms"])
    if meta["causal"]:
        # analyze() reads every CTA as walking the first CTA's item count: under a causal mask
        # the counts differ, so only the by-kind analysis applies; its clock is the same.
        result, text = analyze_clock(stamps), ""
    else:
        result, text = analyze(meta, stamps)
    result["by_kind"] = kinds
    text = text + "\n" + kinds_text
    np.savez_compressed(os.path.join(out_dir, f"kinds-{meta['name']}{suffix}.npz"), **compact)
    name = meta["name"] + suffix
    timing = "".join(f"\n{k}: {v:.1f} TFLOP/s" for k, v in meta.get("tflops", {}).items())
    text = text + timing + "\n"
    with open(os.path.join(out_dir, f"summary-{name}.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(out_dir, f"summary-{name}.json"), "w") as f:
        json.dump({**result, "meta": meta}, f, indent=1)
    with open(os.path.join(out_dir, f"trace-{name}.json"), "w") as f:
        json.dump(chrome_trace(meta, stamps, result["clock_ghz"]), f)
    print(text)


def analyze_saved(out_dir):
    for entry in sorted(os.listdir(out_dir)):
        if entry.startswith("stamps-") and entry.endswith(".npz"):
            saved = np.load(os.path.join(out_dir, entry))
            meta = json.loads(str(saved["meta"]))
            # The saved stamps are the first SAVED_CTAS CTAs: their summary goes beside the one
            # the GPU run wrote from every CTA, not over it.
            write_outputs(out_dir, meta, saved["stamps"], suffix="-saved")


# ---------------------------------------------------------------- steps by kind and the tail

def masked_items(meta, n_block):
    """[ctas, max_items] bool: the items whose query tile meets the causal mask's diagonal (a
    partial tile: the masked pass runs), from the grid position of each CTA (bottom-right aligned,
    seqlen_q == seqlen_k, no GQA group: what run_point times)."""
    max_items = meta["max_items"]
    if not meta["causal"]:
        return np.zeros((len(n_block), max_items), dtype=bool)
    key0 = n_block * block_n(meta["D"])
    rows = block_m(meta["D"])
    m_first = key0 // rows  # the first query tile whose last row reaches the key tile
    row0 = (m_first[:, None] + np.arange(max_items)[None, :]) * rows
    return row0 < key0[:, None] + block_n(meta["D"]) - 1


def analyze_kinds(meta, stamps, sms):
    """Where a CTA's time goes under any mask (CTAs walk different item counts): per item kind
    (diagonal = masked pass, first unmasked, steady unmasked, last) the step and its phases, the
    CTA's prologue and epilogue, and the kernel's tail from every CTA's SM and global-timer
    span. Returns (dict, text, compact arrays for the npz)."""
    header, items = unwrap(stamps)
    ctas, max_items = items.shape[0], items.shape[2]
    n = header[:, 0, ITEMS]
    n_blocks = meta.get("n_blocks", -(-meta["N"] // block_n(meta["D"])))
    n_block = np.arange(ctas) % n_blocks
    masked = masked_items(meta, n_block)
    idx = np.arange(max_items)[None, :]
    top_exit = items[:, :, :, TOP_BARRIER].max(axis=1)
    loop_end = header[:, :, LOOP_END].max(axis=1)
    # Item i's step: its top-barrier exit to the next item's (the last item: to the loop's end).
    nxt = np.concatenate([top_exit[:, 1:], np.zeros((ctas, 1), np.int64)], axis=1)
    last = idx == (n[:, None] - 1)
    nxt = np.where(last, loop_end[:, None], nxt)
    valid = idx < n[:, None]
    step = np.where(valid, nxt - top_exit, 0)
    durations = np.empty(items.shape, dtype=np.int64)
    durations[..., 1:] = np.diff(items, axis=-1)
    durations[:, :, 0, 0] = items[:, :, 0, 0] - header[..., KEY_TILE_ISSUED]
    durations[:, :, 1:, 0] = items[:, :, 1:, COPIES_WAITED] - items[:, :, :-1, REDGS]
    phase_mean = durations.mean(axis=1)  # [ctas, items, phases], mean over warps
    first_unmasked = (valid & ~masked & ~last & (idx == np.argmin(masked, axis=1)[:, None]) &
                      masked.any(axis=1)[:, None])
    kinds = {
        "diagonal (masked pass)": valid & masked & ~last,
        "first unmasked": first_unmasked,
        "steady unmasked": valid & ~masked & ~last & ~first_unmasked & (idx >= STEADY_SKIP) &
                           (idx < n[:, None] - STEADY_SKIP),
        "last item": valid & last,
    }
    if not meta["causal"]:
        kinds.pop("diagonal (masked pass)")
        kinds.pop("first unmasked")
    lines = [f"{meta['name']}: steps by kind ({ctas} CTAs, {int(valid.sum())} items; clocks of the "
             f"instrumented kernel)"]
    out = {"kinds": {}}
    lines.append(f"{'kind':24s} {'count':>7s} {'step med':>9s} {'mean':>7s} " +
                 " ".join(f"{p[:9]:>9s}" for p in PHASES))
    for name, sel in kinds.items():
        if not sel.any():
            continue
        steps = step[sel]
        phases = phase_mean[sel].mean(axis=0)
        out["kinds"][name] = {"count": int(sel.sum()), "step_median": float(np.median(steps)),
                              "step_mean": float(steps.mean()), "phases_mean": phases.tolist()}
        lines.append(f"{name:24s} {int(sel.sum()):7d} {np.median(steps):9.0f} "
                     f"{steps.mean():7.0f} " + " ".join(f"{v:9.0f}" for v in phases))
    prologue = items[:, :, 0, TOP_BARRIER].max(axis=1) - header[:, :, START_CLOCK].min(axis=1)
    epilogue = header[:, :, END_CLOCK].max(axis=1) - loop_end
    cta_clocks = header[:, :, END_CLOCK].max(axis=1) - header[:, :, START_CLOCK].min(axis=1)
    total = float(cta_clocks.sum())
    parts = {"prologue (start to first top exit)": float(prologue.sum()),
             "epilogue (dK, dV stores)": float(epilogue.sum())}
    for name, sel in kinds.items():
        parts[name] = float(step[sel].sum())
    parts["other items (warm-up unmasked)"] = float(step[valid].sum()) - sum(
        float(step[sel].sum()) for sel in kinds.values())
    lines.append("")
    lines.append(f"SM time by part (sum over CTAs; {total:.3g} clocks in all; per CTA median "
                 f"{np.median(cta_clocks):.0f}, prologue {np.median(prologue):.0f}, epilogue "
                 f"{np.median(epilogue):.0f}, items {np.median(n):.0f})")
    for name, v in parts.items():
        lines.append(f"  {name:40s} {v / total:7.2%}")
    out["parts_share"] = {k: v / total for k, v in parts.items()}
    out["cta"] = {"median_clocks": float(np.median(cta_clocks)),
                  "prologue_median": float(np.median(prologue)),
                  "epilogue_median": float(np.median(epilogue))}

    # The tail, from the global timer (ns; the SM clocks are not synchronized across SMs).
    sm = header[:, 0, SM_PLUS_ONE] - 1
    start_ns = (header[:, :, START_NS].min(axis=1) - header[:, :, START_NS].min()) % CLOCK_WRAP
    end_ns = (header[:, :, END_NS].max(axis=1) - header[:, :, START_NS].min()) % CLOCK_WRAP
    span = float(end_ns.max())
    busy = float((end_ns - start_ns).sum())
    used_sms = len(np.unique(sm))
    per_sm_end = np.zeros(sms)
    np.maximum.at(per_sm_end, sm, end_ns)
    order = np.argsort(start_ns, kind="stable")
    gaps = []
    last_end = {}
    for c in order:
        s = int(sm[c])
        if s in last_end:
            gaps.append(start_ns[c] - last_end[s])
        last_end[s] = end_ns[c]
    gaps = np.array(gaps) if gaps else np.zeros(1)
    last_start = float(start_ns.max())
    tail = {"span_us": span / 1e3, "sm_busy_share": busy / (sms * span), "used_sms": used_sms,
            "last_cta_start_us": last_start / 1e3,
            "sm_idle_after_last_cta_share": float((span - per_sm_end).sum() / (sms * span)),
            "gap_between_ctas_ns_median": float(np.median(gaps)),
            "gaps_share": float(gaps.sum() / (sms * span)),
            "launch_order_is_linear": float(np.mean(np.diff(start_ns) >= -1000))}
    # List scheduling of the measured CTA durations (ns), one CTA per SM, in launch order and in
    # other orders: what the tail would be, and what an order could win.
    dur = end_ns - start_ns
    gap = float(np.median(gaps))

    def schedule(sequence):
        free = np.zeros(sms)
        for c in sequence:
            s = int(np.argmin(free))
            free[s] += dur[c] + gap
        return float(free.max())

    linear = np.arange(ctas)
    sims = {"linear (the grid)": schedule(linear),
            "longest first (LPT)": schedule(np.argsort(-dur, kind="stable")),
            "bound: sum / SMs": float((dur + gap).sum() / sms)}
    if meta["causal"]:
        # Key tiles descending in each head: the lightest CTA of each head first.
        sims["key tiles reversed"] = schedule(
            (linear // n_blocks) * n_blocks + n_blocks - 1 -
            linear % n_blocks)
    tail["simulated_span_us"] = {k: v / 1e3 for k, v in sims.items()}
    out["tail"] = tail
    lines.append("")
    lines.append(f"tail: span {span / 1e3:.1f} us, SM busy {busy / (sms * span):.1%} of SMs x span "
                 f"({used_sms} SMs used), idle after each SM's last CTA "
                 f"{tail['sm_idle_after_last_cta_share']:.1%}, gaps between CTAs median "
                 f"{np.median(gaps):.0f} ns ({tail['gaps_share']:.1%}); last CTA starts at "
                 f"{last_start / 1e3:.1f} us")
    lines.append("  simulated spans (measured CTA durations, list scheduling): " +
                 ", ".join(f"{k} {v / 1e3:.1f} us" for k, v in sims.items()))
    compact = {"top_exit": top_exit.astype(np.int64), "n_items": n, "sm": sm,
               "start_ns": start_ns, "end_ns": end_ns, "cta_clocks": cta_clocks,
               "prologue": prologue, "epilogue": epilogue, "step": step.astype(np.int32),
               "masked": masked}
    return out, "\n".join(lines) + "\n", compact


# ---------------------------------------------------------------- GPU side

def backward_call(torch, common, lib, error, q, k, v, out, dout, lse, dq, dk, dv, scale, causal,
                  deterministic=False):
    strides = []
    for t in (q, k, v, out, dout, dq, dk, dv):
        strides += common.strides3(t)
    B, N, H, D = q.shape

    def run():
        rc = lib.fattn_sm80_backward(
            q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr(), dout.data_ptr(),
            lse.data_ptr(), dq.data_ptr(), dk.data_ptr(), dv.data_ptr(), 1, B, N, k.shape[1], H,
            k.shape[2], D, (ctypes.c_int64 * 24)(*strides), scale, int(causal), -1, -1,
            int(deterministic),
            ctypes.c_void_p(torch.cuda.current_stream().cuda_stream), error, common.ERROR_BYTES)
        if rc:
            raise RuntimeError(error.value.decode())
    return run


def rel_error(a, b):
    return float((a.float() - b.float()).norm() / b.float().norm())


def point_inputs(torch, common, D, N, causal):
    """q, k, v, dout of one point (bf16, B·N = 16384, H·D = 2048, seeded by the point), the
    softmax scale and an error buffer for the shim."""
    B, H = 16384 // N, 2048 // D
    gen = torch.Generator(device="cuda")
    gen.manual_seed(D * 7 + N + int(causal))
    q, k, v, dout = (common.make("bf16", B, N, H, D, "bshd", gen) for _ in range(4))
    return q, k, v, dout, D ** -0.5, ctypes.create_string_buffer(common.ERROR_BYTES)


def run_point(torch, common, plain, timeline, extras, out_dir, D, N, causal, reps, variant=0,
              profile_only=False):
    q, k, v, dout, scale, error = point_inputs(torch, common, D, N, causal)
    B, H = q.shape[0], q.shape[2]
    # FA2's forward (aten's flash op) on the (B, H, N, D) views of our (B, N, H, D) tensors,
    # which is its native layout: its out and LSE feed every backward.
    qt, kt, vt, dot = (x.transpose(1, 2) for x in (q, k, v, dout))
    fwd = torch.ops.aten._scaled_dot_product_flash_attention(qt, kt, vt, 0.0, causal, False,
                                                             scale=scale)
    out_t, lse_t = fwd[0], fwd[1]
    out = out_t.transpose(1, 2)
    lse = lse_t.float().contiguous()
    assert lse.shape == (B, H, N), lse.shape

    def flash_backward():
        return torch.ops.aten._scaled_dot_product_flash_attention_backward(
            dot, qt, kt, vt, out_t, lse_t, fwd[2], fwd[3], fwd[4], fwd[5], 0.0, causal, fwd[6],
            fwd[7], scale=scale)

    grads = {}
    launchers = {}
    for name, lib in [("plain", plain), ("timeline", timeline)] + list(extras.items()):
        g = tuple(torch.full_like(x, float("nan")) for x in (q, k, v))
        launchers[name] = backward_call(torch, common, lib, error, q, k, v, out, dout, lse, *g,
                                        scale, causal)
        grads[name] = g
    if variant:
        # The candidate in "plain" and "timeline"; the table ("table") from the plain shim.
        table_grads = tuple(torch.full_like(x, float("nan")) for x in (q, k, v))
        table_run = backward_call(torch, common, plain, error, q, k, v, out, dout, lse,
                                  *table_grads, scale, causal)

        def with_variant(lib, selected, run):
            def call():
                lib.fattn_sm80_bwd_timeline_variant(selected)
                run()
            return call
        launchers["plain"] = with_variant(plain, variant, launchers["plain"])
        launchers["timeline"] = with_variant(timeline, variant, launchers["timeline"])
        launchers["table"] = with_variant(plain, 0, table_run)
        grads["table"] = table_grads
    flash_grads = flash_backward()
    if profile_only:
        # For ncu: FA2's backward (just above) and then the plain shim's, once each, same inputs.
        launchers["plain"]()
        torch.cuda.synchronize()
        return True
    flash_grads = tuple(x.transpose(1, 2) for x in flash_grads[:3])

    sms = torch.cuda.get_device_properties(0).multi_processor_count
    ctas = -(-N // block_n(D)) * H * B
    max_items = -(-N // block_m(D))
    track_words = timeline.fattn_sm80_bwd_timeline_track_words(max_items)
    stamps = torch.zeros(ctas * WARPS * track_words, dtype=torch.int32, device="cuda")
    set_buffer = lambda on: timeline.fattn_sm80_bwd_timeline_set(
        ctypes.c_void_p(stamps.data_ptr() if on else 0), ctas, max_items)

    set_buffer(True)
    for name, run in launchers.items():
        run()
    torch.cuda.synchronize()
    checks = {}
    for name in launchers:
        dq, dk, dv = grads[name]
        checks[name] = {"rel_vs_flash": [rel_error(x, y) for x, y in zip((dq, dk, dv), flash_grads)],
                        "finite": bool(all(torch.isfinite(x).all() for x in (dq, dk, dv)))}
        if name != "plain":
            checks[name]["dk_dv_bitwise_equal_to_plain"] = bool(
                torch.equal(dk, grads["plain"][1]) and torch.equal(dv, grads["plain"][2]))
            checks[name]["dq_rel_vs_plain"] = rel_error(dq, grads["plain"][0])
    ok = all(c["finite"] and max(c["rel_vs_flash"]) < common.TOLERANCE["bf16"] and
             c.get("dk_dv_bitwise_equal_to_plain", True) for c in checks.values())

    # The recorded launch: a fresh buffer after warm launches.
    for _ in range(3):
        launchers["timeline"]()
    stamps.zero_()
    launchers["timeline"]()
    torch.cuda.synchronize()
    host = stamps.view(ctas, WARPS, track_words).cpu().numpy().view(np.uint32)

    def timeline_on():
        set_buffer(True)
        launchers["timeline"]()

    def timeline_off():
        set_buffer(False)
        launchers["timeline"]()

    contestants = [("plain", launchers["plain"], None), ("timeline", timeline_on, None),
                   ("timeline-off", timeline_off, None)]
    contestants += [(name, launchers[name], None) for name in extras]
    if variant:
        contestants.append(("table", launchers["table"], None))
    contestants.append(("flash", flash_backward, None))
    bwd_flops = 2.5 * 4 * B * H * N * N * D / (2 if causal else 1)
    tflops, runs = common.tflops_in_turns(contestants, bwd_flops, TIMING_RUNS, reps,
                                          prefill_cycles=PREFILL_CYCLES)
    set_buffer(False)

    name = point_name(D, N, causal)
    if variant:
        name += f"-v{variant}"
    meta = {"name": name, "variant": variant, "D": D, "N": N, "B": B, "H": H, "causal": causal,
            "sms": sms, "n_blocks": -(-N // block_n(D)),
            "device": torch.cuda.get_device_name(0), "ctas": ctas, "max_items": max_items,
            "tflops": tflops, "tflops_runs": runs, "checks": checks,
            "note": "backward TFLOP/s = 2.5 x forward FLOPs / backward time (pre/postprocess "
                    "included for ours and FA2's)"}
    np.savez_compressed(os.path.join(out_dir, f"stamps-{name}.npz"),
                        stamps=host[:SAVED_CTAS], meta=json.dumps(meta))
    print(f"{name}: " + json.dumps(checks) + "; " +
          ", ".join(f"{k2} {v2:.1f}" for k2, v2 in tflops.items()) + " TFLOP/s (backward)",
          flush=True)
    write_outputs(out_dir, meta, host)
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--timeline", help="the shim built with FATTN_SM80_BWD_TIMELINE")
    parser.add_argument("--plain", help="the same shim built without it")
    parser.add_argument("--out", help="results folder")
    parser.add_argument("--extra", action="append", default=[],
                        help="NAME=LIB: another uninstrumented shim timed in the same turns")
    parser.add_argument("--analyze", help="re-analyze the stamps saved in this folder")
    parser.add_argument("--reps", type=int, default=10, help="timing rounds (in turns)")
    parser.add_argument("--variant", type=int, default=0,
                        help="the shims' candidate tile (0: the table)")
    parser.add_argument("--points", default=";".join(f"{D},{N},{int(c)}" for D, N, c in POINTS),
                        help="D,N,causal;...")
    parser.add_argument("--profile-only", action="store_true",
                        help="for ncu: one FA2 backward, then one of the plain shim, per point; "
                             "nothing timed or written")
    args = parser.parse_args()
    if args.analyze:
        analyze_saved(args.analyze)
        return 0
    import torch
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import kernel_bench_common as common
    if not args.profile_only:
        os.makedirs(args.out, exist_ok=True)

    def load(path):
        lib = ctypes.CDLL(os.path.abspath(path))
        lib.fattn_sm80_backward.argtypes = common.SM80_BACKWARD_ARGTYPES
        lib.fattn_sm80_backward.restype = ctypes.c_int
        lib.fattn_sm80_bwd_timeline_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
        lib.fattn_sm80_bwd_timeline_track_words.restype = ctypes.c_longlong
        lib.fattn_sm80_bwd_timeline_variant.argtypes = [ctypes.c_int]
        return lib

    plain, timeline = load(args.plain), load(args.timeline)
    extras = {}
    for item in args.extra:
        name, path = item.split("=", 1)
        extras[name] = load(path)
    if timeline.fattn_sm80_bwd_timeline_track_words(1) == 0:
        raise SystemExit("--timeline: that shim was built without FATTN_SM80_BWD_TIMELINE")
    ok = True
    for point in args.points.split(";"):
        D, N, causal = (int(x) for x in point.split(","))
        ok &= run_point(torch, common, plain, timeline, extras, args.out, D, N, bool(causal),
                        args.reps, args.variant, args.profile_only)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
