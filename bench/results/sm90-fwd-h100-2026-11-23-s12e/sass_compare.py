#!/usr/bin/env python3
"""h12-fwd90e: which kernels' SASS differ between two objects (cuobjdump -sass text files)."""
import re, sys
def functions(path):
    out, name, body = {}, None, []
    for line in open(path, errors="replace"):
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            if name: out[name] = "".join(body)
            name, body = m.group(1), []
        elif name:
            body.append(re.sub(r"/\*[0-9a-f]{4,}\*/", "", line))
    if name: out[name] = "".join(body)
    return out
a, b = functions(sys.argv[1]), functions(sys.argv[2])
same = [n for n in a if n in b and a[n] == b[n]]
diff = [n for n in a if n in b and a[n] != b[n]]
print(f"{sys.argv[1]}: {len(a)} kernels, identical {len(same)}, different {len(diff)}, "
      f"only in one {len(set(a) ^ set(b))}")
for n in diff:
    print("  differs:", "NoMask" if "NoMask" in n else ("Causal" if "Causal" in n else "other"), n[:160])
