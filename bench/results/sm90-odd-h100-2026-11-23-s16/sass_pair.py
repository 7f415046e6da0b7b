#!/usr/bin/env python3
"""OLD.o NEW.o: pairs each old forward kernel with the new one that has `, false` appended as
its last template argument (kSectorBoxes off) and compares their SASS (bench/sass_compare.py's
parser); lists the new kernels with the flag on (instruction count, LDL/STL)."""
import re, subprocess, sys
sys.path.insert(0, "bench")
from sass_compare import kernels

def names(d):
    return {subprocess.run(["c++filt"], input=m, capture_output=True, text=True).stdout.strip(): m
            for m in d}

old, new = kernels(sys.argv[1]), kernels(sys.argv[2])
on, nn = names(old), names(new)
same = diff = missing = 0
for name, m in on.items():
    key = re.sub(r">\(", ", false>(", name, count=1) if "forward_kernel<" in name else name
    if key not in nn:
        missing += 1; print("no pair:", name[:160]); continue
    if old[m] == new[nn[key]]: same += 1
    else: diff += 1; print("DIFF:", name[:160])
print(f"{same} same, {diff} differ, {missing} unpaired of {len(on)} old kernels")
for name, m in nn.items():
    if ", true>(" in name and "forward_kernel<" in name:
        body = new[m]
        ldl = sum(1 for i in body if re.match(r"(LDL|STL)\b", i))
        print(f"sector kernel: {len(body)} instr, LDL/STL {ldl}: {name[:110]}")
