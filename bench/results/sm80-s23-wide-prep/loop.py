import sys,re,collections
# per function: find backward branches; take the largest loop containing HMMA; count instruction classes
funcs=collections.OrderedDict(); cur=None
for line in open(sys.argv[1]):
    m=re.search(r'Function : (\S+)',line)
    if m: cur=m.group(1); funcs[cur]=[]; continue
    m=re.match(r'\s+/\*([0-9a-f]{4,})\*/\s+(.*?);',line)
    if m and cur: funcs[cur].append((int(m.group(1),16),m.group(2)))
for f,ins in funcs.items():
    best=None
    for i,(a,t) in enumerate(ins):
        m=re.search(r'BRA\s+(?:`\(\.L_x_\d+\)\s*)?0x([0-9a-f]+)',t)
        if not m:
            m=re.search(r'BRA.*?0x([0-9a-f]+)',t)
        if m:
            tgt=int(m.group(1),16)
            if tgt<a:
                body=[x for x in ins if tgt<=x[0]<=a]
                h=sum('HMMA' in x[1] for x in body)
                if h and (best is None or len(body)>len(best)): best=body
    if not best: print(f[:90],'no loop'); continue
    c=collections.Counter()
    for a,t in best:
        op=re.sub(r'^@!?U?P\w+\s+','',t).split()[0].split('.')[0]
        c[op]+=1
    print(f"{f[40:130]} loop={len(best)} HMMA={c['HMMA']} LDSM={c['LDSM']} LDS={c['LDS']} STS={c['STS']} LOP3={c['LOP3']} MUFU={c['MUFU']} BAR={c['BAR']} LDGSTS={c['LDGSTS']} BRA={c['BRA']}")
