import re,sys
lines=open(sys.argv[1]).read().splitlines(); want=sys.argv[2]
ins=[];on=False
for l in lines:
    if 'Function :' in l: on = want in l
    if not on: continue
    m=re.match(r'\s+/\*([0-9a-f]{4,})\*/\s+(.*?);',l)
    if m: ins.append((int(m.group(1),16),m.group(2).strip()))
best=None
for a,t in ins:
    m=re.search(r'BRA.*?0x([0-9a-f]+)',t)
    if m and int(m.group(1),16)<a:
        body=[x for x in ins if int(m.group(1),16)<=x[0]<=a]
        if any('HMMA' in x[1] for x in body) and (best is None or len(body)>len(best)): best=body
for a,t in best:
    if 'BAR.SYNC' in t: break
    if any(k in t for k in ('LDS','STS','BAR','DEPBAR','BRA','BSYNC')): print(hex(a),t)
