#!/usr/bin/env python3
"""Per kernel of a cuobjdump -sass listing: instruction count, and each loop (backward branch)
that holds an HGMMA: its size and opcode counts.  python3 loops.py FILE.sass [name-filter...]"""
import re, subprocess, sys, collections
path = sys.argv[1]; filters = sys.argv[2:]
text = open(path).read()
funcs = re.split(r"\n\s*Function : ", text)[1:]
INS = re.compile(r"/\*([0-9a-f]+)\*/\s*(.*?)\s*;?\s*/\*")
KEYS = ["HGMMA", "MUFU.EX2", "FMUL", "FFMA", "FADD", "FMNMX", "FSEL", "ISETP", "SHFL", "R2UR", "UIADD3", "SYNCS", "BAR", "WARPGROUP", "STL", "LDL", "UTMALDG", "UTMASTG", "MEMBAR"]
for f in funcs:
    name = f.split("\n", 1)[0].strip()
    dem = subprocess.run(["c++filt"], input=name, capture_output=True, text=True).stdout.strip()
    short = re.sub(r"\(CUtensorMap.*", "", dem).replace("fattn::detail::sm90::", "").replace("fattn::detail::", "")
    if filters and not all(x in short for x in filters):
        continue
    ins = []
    for line in f.split("\n"):
        m = INS.search(line)
        if m:
            ins.append((int(m.group(1), 16), m.group(2)))
    addr_index = {a: i for i, (a, _) in enumerate(ins)}
    loops = []
    for i, (a, t) in enumerate(ins):
        m = re.search(r"\bBRA\b.*?(0x[0-9a-f]+)", t)
        if not m:
            continue
        target = int(m.group(1), 16)
        if target >= a or target not in addr_index:
            continue
        j = addr_index[target]
        body = [x for _, x in ins[j:i + 1]]
        if not any("HGMMA" in x for x in body):
            continue
        c = collections.Counter()
        for x in body:
            op = re.sub(r"^@!?U?P[T0-9]+\s+", "", x).split()[0]
            for k in KEYS:
                if op.startswith(k):
                    c[k] += 1
        loops.append((len(body), c, target, a))
    wm = re.search(r"forward_kernel<\d+, (\d+),", short)
    need = int(wm.group(1)) // 16 + 6 if wm else 18
    key = min((l for l in loops if l[1]["HGMMA"] >= need), default=None, key=lambda l: l[0])
    desc = (f"key loop {key[0]} instr; " + ", ".join(f"{k} {key[1][k]}" for k in KEYS if key[1][k])) if key else "no key loop"
    stl = sum(1 for _, x in ins if re.search(r"\b(STL|LDL)\b", x))
    print(f"{short[5:]}: {len(ins)} instr, STL/LDL {stl}; {desc}")
