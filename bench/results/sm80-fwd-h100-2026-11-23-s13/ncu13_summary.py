#!/usr/bin/env python3
"""h13-fwd80: the metrics this session compares, per profiled kernel, from
`ncu --import REP --page raw --csv` (stdin)."""
import csv, re, sys

WANT = [
    ("us", r"gpu__time_duration.sum"),
    ("grid", r"launch__grid_size"), ("block", r"launch__block_size"),
    ("regs", r"launch__registers_per_thread"),
    ("smem/blk", r"launch__shared_mem_per_block_dynamic"),
    ("occ.theor%", r"sm__maximum_warps_per_active_cycle_pct"),
    ("occ.ach%", r"sm__warps_active.avg.pct_of_peak_sustained_active"),
    ("waves", r"launch__waves_per_multiprocessor"),
    ("dramRd MB", r"dram__bytes_read.sum"), ("dramWr MB", r"dram__bytes_write.sum"),
    ("dram%", r"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"),
    ("L2hit%", r"lts__t_sector_hit_rate.pct"),
    ("L1%", r"l1tex__throughput.avg.pct_of_peak_sustained_active"),
    ("issue%", r"sm__inst_issued.avg.pct_of_peak_sustained_active"),
    ("ipc", r"sm__inst_executed.avg.per_cycle_active"),
    ("tensor%", r"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"),
    ("inst M", r"smsp__inst_executed.sum"),
    ("cyc/issue", r"smsp__average_warp_latency_per_inst_issued.ratio"),
    ("sm active%", r"sm__cycles_active.avg.pct_of_peak_sustained_elapsed"),
    ("clk MHz", r"sm__cycles_elapsed.avg.per_second"),
]
rows = list(csv.reader(sys.stdin))
header, units, data = rows[0], rows[1], rows[2:]
col = {h: i for i, h in enumerate(header)}
name_col = col.get("Kernel Name")
for r in data:
    name = r[name_col] if name_col is not None else "?"
    short = re.sub(r"\(.*", "", name)[:60]
    out = []
    for label, metric in WANT:
        i = col.get(metric)
        if i is None:
            continue
        v, u = r[i], units[i]
        try:
            x = float(v.replace(",", ""))
            if "MB" in label and u in ("byte", "Kbyte", "Mbyte", "Gbyte"):
                x *= {"byte": 1e-6, "Kbyte": 1e-3, "Mbyte": 1, "Gbyte": 1e3}[u]
            elif label == "us" and u in ("nsecond", "usecond", "msecond"):
                x *= {"nsecond": 1e-3, "usecond": 1, "msecond": 1e3}[u]
            elif label == "inst M":
                x *= 1e-6
            elif label == "clk MHz":
                x *= {"hz": 1e-6, "Khz": 1e-3, "Mhz": 1, "Ghz": 1e3}.get(u, 1) if u else 1
            v = f"{x:.4g}"
        except ValueError:
            pass
        out.append(f"{label} {v}")
    print(f"{short}: " + "; ".join(out))
    stalls = []
    for h, i in col.items():
        m = re.match(r"smsp__average_warps_issue_stalled_(\w+)_per_issue_active\.ratio$", h)
        if m:
            try:
                stalls.append((float(r[i]), m.group(1)))
            except ValueError:
                pass
    stalls.sort(reverse=True)
    print("   stalls/issue: " + ", ".join(f"{n} {v:.2f}" for v, n in stalls[:7]))
