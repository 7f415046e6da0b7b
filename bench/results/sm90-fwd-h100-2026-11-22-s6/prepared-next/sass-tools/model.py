# Crude in-order issue model of one warp alone on its SM sub-partition over the key loop's softmax
# region: one instruction per clock, a MUFU at least 8 clocks after the previous MUFU (16 ex2/clk/SM
# = 4 lanes/clk per sub-partition), no other latencies. The region runs from the first
# WARPGROUP.DEPBAR after the loop's first HGMMA (the 17th of the kernel: the 8 of the first tile's
# Q·Kᵀ come before the loop) to the last F2FP before the next BAR.SYNC. Also reported: where the
# P·V wait (the region's 2nd WARPGROUP.DEPBAR) sits, in clocks from the region's start.
# usage: model.py [--first-hgmma N] FILE.sass...   (serial kernels: --first-hgmma 1)
import re, sys
args = sys.argv[1:]
first = 17
if args[0] == '--first-hgmma':
    first = int(args[1]); args = args[2:]
for path in args:
    ops = []
    for line in open(path):
        m = re.match(r'\s*(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]+)', line)
        if m: ops.append(m.group(2))
    h = 0; loop = []
    for op in ops:
        if op.startswith('HGMMA'): h += 1
        if h >= first: loop.append(op)
        if h >= first and op.startswith('BAR.SYNC'): break
    start = next(i for i, op in enumerate(loop) if op.startswith('WARPGROUP.DEPBAR'))
    end = max(i for i, op in enumerate(loop) if op.startswith('F2FP'))
    t = 0; last_mufu = -100; waits = []; first_mufu = None; last_mufu_t = None
    for op in loop[start:end + 1]:
        if op.startswith('MUFU'):
            t = max(t, last_mufu + 8); last_mufu = t
            first_mufu = t if first_mufu is None else first_mufu; last_mufu_t = t
        if op.startswith('WARPGROUP.DEPBAR'): waits.append(t)
        t += 1
    n_mufu = sum(op.startswith('MUFU') for op in loop[start:end + 1])
    print(f"{path}: region {end - start + 1} instr, modelled {t} clk; MUFU {n_mufu} (pipe floor {8 * n_mufu}), "
          f"first at {first_mufu}, last at {last_mufu_t}; P·V wait at clk {waits[1:]}")
