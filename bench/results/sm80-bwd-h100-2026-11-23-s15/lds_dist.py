"""For each kernel whose mangled name matches PATTERN: every LDS.64 (the score passes' LSE / D_i
pairs) -> instructions to the first FFMA / FADD reading its destination register pair.
   python3 lds_dist.py OBJECT PATTERN   (needs cuobjdump)"""
import re, subprocess, sys
path, pattern = sys.argv[1], sys.argv[2]
sass = subprocess.run(["cuobjdump", "-sass", path], capture_output=True, text=True).stdout
cur, funcs = None, {}
for line in sass.splitlines():
    m = re.search(r"Function : (\S+)", line)
    if m: cur = m.group(1); funcs[cur] = []; continue
    m = re.match(r"\s*/\*[0-9a-f]+\*/\s*(.*?)\s*;?\s*/\*", line)
    if cur and m: funcs[cur].append(m.group(1))
for name, ins in funcs.items():
    if not re.search(pattern, name): continue
    out = []
    for i, s in enumerate(ins):
        m = re.search(r"LDS\.64 R(\d+), \[", s)
        if not m: continue
        r = int(m.group(1)); regs = {f"R{r}", f"R{r+1}"}
        for j in range(i + 1, min(i + 400, len(ins))):
            ops = re.findall(r"R\d+", ins[j].split(" ", 1)[1] if " " in ins[j] else "")
            op = ins[j].split()[0] if not ins[j].startswith("@") else ins[j].split()[1]
            if op.startswith(("FFMA", "FADD")) and regs & set(ops[1:]):
                out.append(f"{j-i}:{op.split('.')[0]}"); break
    print(len(ins), name[:90], " ".join(out))
