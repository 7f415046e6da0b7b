#!/usr/bin/env python3
"""Per-phase view of ncu's source page (SASS lines with executed counts and stall samples), to
find where one backward kernel spends cycles that another does not (docs/perf-notes.md "Backward
v7": ours against FA2's at D = 128). Reads the csv of `ncu --import r.ncu-rep --page source --csv
--print-source sass` (bench/sm80_bwd_device_run.sh's ncufa2 step keeps it as ncu_source.csv.gz).

  lines    SRC K TILES            every executed line of kernel K (0-based block of the csv):
                                  line number, executions per warp-tile (TILES = CTAs x warps x
                                  query tiles), samples, the two largest stall reasons
  segments SRC K TILES            the lines cut at each BAR/BRA, with HMMA/LDSM/... counts per
                                  warp-tile and the stall mix (to choose the phase boundaries)
  phases   SRC K TILES NAME:A-B.. samples, share, stall mix and largest opcodes of named line
                                  ranges
  opcodes  SRC K TILES K2          samples and executions per warp-tile by opcode, kernel K
                                  against kernel K2 of the same csv (the largest differences
                                  first, each with its three largest stall reasons)
Samples compare across kernels of one report: they are proportional to warp-cycles.
"""

import collections
import csv
import re
import sys


def kernels(path):
    """[title, header, rows] per profiled kernel. ncu 2025's source page printed each of our
    kernels' blocks twice in a row (bench/results/sm80-bwd-h100-2026-11-23-s10): a block equal
    to the one before it is dropped, so kernel k is the k-th launch profiled."""
    blocks = []
    for row in csv.reader(open(path, newline="")):
        if not row:
            continue
        if row[0].startswith("Kernel Name"):
            blocks.append([row[1], None, []])
        elif row[0] == "Address":
            blocks[-1][1] = row
        elif blocks and blocks[-1][1] is not None:
            blocks[-1][2].append(row)
    return [b for i, b in enumerate(blocks) if i == 0 or b != blocks[i - 1]]


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def executed_lines(path, kernel, tiles):
    """(line, executions per warp-tile, samples, opcode, source, {stall: samples})."""
    title, header, rows = kernels(path)[kernel]
    index = {name: i for i, name in enumerate(header)}
    stalls = [(i, name[len("stall_"):]) for i, name in enumerate(header)
              if name.startswith("stall_") and "(Not" not in name]
    lines = []
    for n, row in enumerate(rows):
        executed = number(row[index["Instructions Executed"]]) / tiles
        samples = number(row[index["Warp Stall Sampling (All Samples)"]])
        if executed == 0 and samples == 0:
            continue
        source = row[index["Source"]].strip()
        op = re.sub(r"^@!?U?P\w+\s+", "", source).split(" ")[0]
        lines.append((n, executed, samples, op, source,
                      {name: number(row[i]) for i, name in stalls if number(row[i])}))
    return title, lines


def stall_mix(selected, samples, top):
    mix = collections.Counter()
    for line in selected:
        mix.update(line[5])
    return " ".join(f"{k}:{100 * v / max(samples, 1):.0f}%" for k, v in mix.most_common(top))


def main():
    command, path, kernel, tiles = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    title, lines = executed_lines(path, kernel, tiles)
    total = sum(line[2] for line in lines)
    print(f"{title[:150]}\ntotal samples {total:.0f}")
    if command == "lines":
        for n, executed, samples, _, source, stalls in lines:
            top = " ".join(f"{k}:{v:.0f}" for k, v in
                           sorted(stalls.items(), key=lambda kv: -kv[1])[:2])
            print(f"{n:5d} {executed:7.2f} {samples:7.0f}  {source[:70]:70s} {top}")
    elif command == "segments":
        segment = []
        for line in lines + [None]:
            if line is not None:
                segment.append(line)
            if segment and (line is None or line[3].startswith(("BAR", "BRA", "EXIT"))):
                samples = sum(x[2] for x in segment)
                ops = collections.Counter()
                for x in segment:
                    ops[x[3].split(".")[0]] += x[1]
                counts = " ".join(f"{o}:{ops[o]:.0f}" for o in
                                  ("HMMA", "LDSM", "MUFU", "FFMA", "STS", "REDG", "RED",
                                   "LDGSTS", "IMAD") if ops[o] >= 0.5)
                print(f"{segment[0][0]:5d}-{segment[-1][0]:5d} executed "
                      f"{sum(x[1] for x in segment):7.1f} samples {100 * samples / total:5.1f}% "
                      f"[{counts}] {stall_mix(segment, samples, 3)}")
                segment = []
    elif command == "phases":
        for spec in sys.argv[5:]:
            name, span = spec.split(":")
            first, last = map(int, span.split("-"))
            selected = [x for x in lines if first <= x[0] <= last]
            samples = sum(x[2] for x in selected)
            print(f"{name:16s} samples {samples:7.0f} ({100 * samples / total:5.1f} %) executed "
                  f"per warp-tile {sum(x[1] for x in selected):7.1f}  "
                  f"{stall_mix(selected, samples, 4)}")
            ops = sorted(by_opcode(selected).items(), key=lambda kv: -kv[1][0])[:PHASE_OPCODES]
            print(f"{'':16s} " + ", ".join(f"{op} {v[0]:.0f}/{v[1]:.1f}" for op, v in ops) +
                  "  (samples / executions per warp-tile)")
    elif command == "opcodes":
        other_title, other_lines = executed_lines(path, int(sys.argv[5]), tiles)
        print(f"against {other_title[:150]}\ntotal samples {sum(x[2] for x in other_lines):.0f}")
        mine, theirs = by_opcode(lines), by_opcode(other_lines)
        print(f"{'opcode':8s} {'samples':>9s} {'other':>9s} {'diff':>9s} {'exec':>7s} "
              f"{'other':>7s}  stalls | other's stalls")
        for op in sorted(set(mine) | set(theirs),
                         key=lambda o: -abs(mine.get(o, EMPTY)[0] - theirs.get(o, EMPTY)[0])):
            a, b = mine.get(op, EMPTY), theirs.get(op, EMPTY)
            if max(a[0], b[0]) < MIN_OPCODE_SAMPLES:
                continue
            print(f"{op:8s} {a[0]:9.0f} {b[0]:9.0f} {a[0] - b[0]:9.0f} {a[1]:7.1f} {b[1]:7.1f}  "
                  f"{top_stalls(a[2])} | {top_stalls(b[2])}")
    return 0


EMPTY = (0.0, 0.0, collections.Counter())
MIN_OPCODE_SAMPLES = 5000  # opcodes with fewer samples in both kernels are left out
PHASE_OPCODES = 8  # opcodes listed under each named range of `phases`


def by_opcode(lines):
    """{opcode: (samples, executions per warp-tile, Counter of stall samples)}."""
    table = {}
    for _, executed, samples, op, _, stalls in lines:
        name = op.split(".")[0]
        old = table.get(name, (0.0, 0.0, collections.Counter()))
        table[name] = (old[0] + samples, old[1] + executed, old[2] + collections.Counter(stalls))
    return table


def top_stalls(stalls):
    return " ".join(f"{k}:{v:.0f}" for k, v in stalls.most_common(3))


if __name__ == "__main__":
    sys.exit(main())
