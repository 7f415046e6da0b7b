#!/usr/bin/env python3
"""h17-n512: for every kernel whose SASS differs between two objects (bench/sass_compare.py's
DIFF), where the first difference lies once branch targets are ignored: the instruction index of
the first differing line, and how many of the kernel's HGMMA / UTMALDG / UTMAPF come before it.
The candidates change the producer's loop only (placed after the consumers' code in these
kernels), so every HGMMA (the consumers' whole key loop and epilogue) should come before the
first difference (or, where ptxas renumbered uniform registers in the shared prologue, before the
first difference with uniform register and predicate numbers ignored).
  python3 consumer_same.py OLD.o NEW.o"""
import re
import subprocess
import sys

NV = "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/nvidia/cu13/bin/cuobjdump"
INSTR = re.compile(r"\s*/\*[0-9a-f]+\*/\s*(.*?)\s*;?\s*/\*")


def kernels(path):
    out = subprocess.run([NV, "-sass", path], capture_output=True, text=True, check=True).stdout
    result, name = {}, None
    for line in out.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            name = m.group(1)
            result[name] = []
            continue
        m = INSTR.match(line)
        if m and name:
            ins = re.sub(r"(BRA|BSSY|CALL\.REL\.NOINC|CALL\.REL|BRX|JMP)(\S*)\s+.*", r"\1\2 X",
                         m.group(1))
            result[name].append(ins)
    return result


old, new = kernels(sys.argv[1]), kernels(sys.argv[2])
for name in sorted(set(old) & set(new)):
    a, b = old[name], new[name]
    if a == b:
        continue
    first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    ur = lambda x: re.sub(r"\bU?P[0-9]\b", "UP", re.sub(r"\bUR[0-9]+", "UR", x))
    first_u = next((i for i, (x, y) in enumerate(zip(a, b)) if ur(x) != ur(y)),
                   min(len(a), len(b)))
    def count(seq, op, upto=None):
        return sum(op in x for x in seq[:upto])
    short = re.sub(r"_ZN5fattn6detail4sm9014forward_kernelILi", "fwd<", name)[:70]
    print(f"{short}: {len(a)} -> {len(b)} instr, first diff at {first}"
          f" ({first_u} with uniform registers ignored); HGMMA before it "
          f"{count(b, 'HGMMA', first)} / {count(b, 'HGMMA', first_u)} of {count(b, 'HGMMA')}"
          f" (old {count(a, 'HGMMA')}), "
          f"UTMALDG {count(b, 'UTMALDG', first)}/{count(b, 'UTMALDG')}, UTMAPF {count(b, 'UTMAPF')}")
