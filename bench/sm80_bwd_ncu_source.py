#!/usr/bin/env python3
"""Summarises ncu's source page (SASS, one block per profiled kernel) of the backward kernels:
per kernel, the instructions executed per warp, the stall samples by reason, and where the
samples fall (by opcode class, and by region: the SASS cut at each BAR.SYNC, so that in our
kernel phase A, phase B + the dQ product and the atomics show apart).

  ncu --import r.ncu-rep --page source --csv --print-source sass > source.csv
  python3 bench/sm80_bwd_ncu_source.py source.csv

Column names differ between ncu versions; the script looks them up by substring and prints the
header it found, so a missing column shows as such instead of as a wrong number.
"""

import collections
import csv
import re
import sys


def blocks(path):
    """Yields (kernel title, header, rows): a new block starts at each header line."""
    title, header, rows = None, None, []
    with open(path, newline="") as f:
        for row in csv.reader(f):
            if not row:
                continue
            if len(row) == 1 or (row[0].startswith("Kernel") and len(row) <= 3):
                if header is not None:
                    yield title, header, rows
                    header, rows = None, []
                title = " ".join(row)
                continue
            if "Address" in row[0] or "# Address" in row[0] or ("Source" in row and header is None):
                if header is not None:
                    yield title, header, rows
                    rows = []
                header = row
                continue
            if header is not None:
                rows.append(row)
    if header is not None:
        yield title, header, rows


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def column(header, *needles):
    for i, name in enumerate(header):
        if all(n.lower() in name.lower() for n in needles):
            return i
    return None


def opcode(source):
    text = re.sub(r"^@!?U?P\w+\s+", "", source.strip())
    return text.split(" ")[0].split(".")[0] if text else ""


def summarise(title, header, rows):
    source = column(header, "source")
    samples = column(header, "warp stall sampling (all")
    executed = column(header, "instructions executed")
    stall_columns = [(i, name) for i, name in enumerate(header)
                     if name.lower().startswith("stall_") or "stalled_" in name.lower()
                     or name.lower().startswith("smsp__pcsamp_warps_issue_stalled")]
    print(f"=== {title}\n  {len(rows)} SASS lines; columns: source {source}, samples {samples}, "
          f"executed {executed}, {len(stall_columns)} stall-reason columns")
    if source is None:
        print("  header:", header[:40])
        return
    total_samples = sum(number(r[samples]) for r in rows) if samples is not None else 0
    total_executed = sum(number(r[executed]) for r in rows) if executed is not None else 0
    print(f"  samples {total_samples:.0f}, instructions executed (warp level) {total_executed:.0f}")
    by_reason = collections.Counter()
    for i, name in stall_columns:
        by_reason[name] = sum(number(r[i]) for r in rows)
    for name, value in by_reason.most_common(12):
        if value:
            print(f"  stall {name}: {value:.0f} ({100 * value / max(total_samples, 1):.1f} %)")
    by_opcode = collections.Counter()
    executed_by_opcode = collections.Counter()
    for r in rows:
        op = opcode(r[source])
        if samples is not None:
            by_opcode[op] += number(r[samples])
        if executed is not None:
            executed_by_opcode[op] += number(r[executed])
    print("  samples by opcode: " + ", ".join(
        f"{op} {100 * v / max(total_samples, 1):.1f}%" for op, v in by_opcode.most_common(14)))
    print("  executed by opcode: " + ", ".join(
        f"{op} {100 * v / max(total_executed, 1):.1f}%"
        for op, v in executed_by_opcode.most_common(14)))
    # Regions between block barriers.
    region, region_samples, region_executed, region_ops = 0, collections.Counter(), \
        collections.Counter(), collections.defaultdict(collections.Counter)
    for r in rows:
        op = opcode(r[source])
        if samples is not None:
            region_samples[region] += number(r[samples])
        if executed is not None:
            region_executed[region] += number(r[executed])
            region_ops[region][op] += number(r[executed])
        if op == "BAR":
            region += 1
    for k in sorted(region_samples):
        ops = region_ops[k]
        print(f"  region {k}: samples {100 * region_samples[k] / max(total_samples, 1):.1f} %, "
              f"executed {region_executed[k]:.0f} (HMMA {ops['HMMA']:.0f}, LDSM {ops['LDSM']:.0f}, "
              f"BRA {ops['BRA']:.0f})")


def main():
    for title, header, rows in blocks(sys.argv[1]):
        summarise(title, header, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
