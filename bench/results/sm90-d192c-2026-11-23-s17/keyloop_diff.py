import re,sys,subprocess,difflib
INS = re.compile(r"/\*([0-9a-f]+)\*/\s*(.*?)\s*;?\s*/\*")
def keyloop(path, filt):
    text=open(path).read()
    for f in re.split(r"\n\s*Function : ", text)[1:]:
        name=f.split("\n",1)[0].strip()
        dem=subprocess.run(["c++filt"],input=name,capture_output=True,text=True).stdout
        if not all(x in dem for x in filt): continue
        ins=[(int(m.group(1),16),m.group(2)) for m in map(INS.search,f.split("\n")) if m]
        idx={a:i for i,(a,_) in enumerate(ins)}
        best=None
        for i,(a,t) in enumerate(ins):
            m=re.search(r"\bBRA\b.*?(0x[0-9a-f]+)",t)
            if not m: continue
            tg=int(m.group(1),16)
            if tg>=a or tg not in idx: continue
            body=[x for _,x in ins[idx[tg]:i+1]]
            if sum("HGMMA" in x for x in body)>=18 and (best is None or len(body)<len(best)): best=body
        # normalise: opcode + registers, drop branch targets / addresses
        return [re.sub(r"0x[0-9a-f]+","ADDR",x) for x in best]
a=keyloop(sys.argv[1],sys.argv[3:]); b=keyloop(sys.argv[2],sys.argv[3:])
print(len(a),len(b),"identical" if a==b else "differ")
if a!=b:
    for l in list(difflib.unified_diff(a,b,lineterm="",n=0))[:40]: print(l)
