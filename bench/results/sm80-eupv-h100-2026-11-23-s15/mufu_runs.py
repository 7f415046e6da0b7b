#!/usr/bin/env python3
"""h15-eupv: for each aligned sm80 forward kernel of a `cuobjdump -sass` text, each key-tile loop
(>= 300 instructions) with its HMMA and MUFU counts and the longest run of MUFU with no HMMA
between them (the exponentials that ExponentsUnderPv moves under P·V).

  python3 mufu_runs.py X.sass [substring of the mangled kernel name]
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from sm80_sass_loops import kernels, opcode  # noqa: E402

MIN_LOOP = 300
pattern = sys.argv[2] if len(sys.argv) > 2 else ""
for name, ins in kernels(sys.argv[1]).items():
    if "forward_kernel" not in name or pattern not in name:
        continue
    if "unaligned" in name:
        continue
    index = {a: i for i, (a, _) in enumerate(ins)}
    loops = []
    for i, (a, text) in enumerate(ins):
        branch = re.search(r"BRA .*?0x([0-9a-f]+)", text)
        if branch:
            target = int(branch.group(1), 16)
            if target < a and target in index and i - index[target] >= MIN_LOOP:
                loops.append((index[target], i))
    out = []
    for start, end in loops:
        ops = [opcode(t) for _, t in ins[start:end + 1]]
        run = longest = 0
        for o in ops:
            if o == "HMMA":
                run = 0
            elif o == "MUFU":
                run += 1
                longest = max(longest, run)
        out.append(f"len {end - start + 1} HMMA {ops.count('HMMA')} MUFU {ops.count('MUFU')} "
                   f"longest MUFU run {longest}")
    short = name.replace("_ZN5fattn6detail4sm80", "")[:110]
    print(short, "|", "; ".join(out))
