import re,sys,collections
def funcs(path):
    out=collections.OrderedDict(); cur=None
    for line in open(path):
        m=re.search(r"Function : (\S+)", line)
        if m: cur=m.group(1); out[cur]=[]; continue
        if cur is None: continue
        m=re.match(r"\s+/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;", line)
        if m: out[cur].append(re.sub(r"0x[0-9a-f]+", "X", m.group(1)) if 'BRA' in m.group(1) or 'CALL' in m.group(1) or 'BSSY' in m.group(1) else m.group(1))
    return out
a=funcs(sys.argv[1]); b=funcs(sys.argv[2])
same=diff=0; names=[]
for k in set(a)|set(b):
    if a.get(k)==b.get(k): same+=1
    else: diff+=1; names.append(k)
print(f"same {same} diff {diff}", ' '.join(names)[:400])
