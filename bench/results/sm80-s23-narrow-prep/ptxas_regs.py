import re,sys
def parse(path):
    out={}; cur=None
    for line in open(path, errors='replace'):
        m=re.search(r"Compiling entry function '(\S+)' for '(\w+)'", line)
        if m: cur=(m.group(1), m.group(2)); out[cur]={'spill':None}; continue
        if cur is None: continue
        m=re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and out[cur]['spill'] is None: out[cur]['spill']=(int(m.group(1)),int(m.group(2)))
        m=re.search(r"Used (\d+) registers", line)
        if m and 'regs' not in out[cur]: out[cur]['regs']=int(m.group(1))
    return out
pat=sys.argv[3] if len(sys.argv)>3 else ''
a=parse(sys.argv[1]); b=parse(sys.argv[2])
def short(n):
    n=re.sub(r'_ZN5fattn6detail4sm80\d+','',n); n=re.sub(r'NS1_13ForwardParams.*','',n)
    n=re.sub(r'INS1_\d+','<',n); n=re.sub(r'ILi(\d+)EEE',r'\1>,',n); n=re.sub(r'NS0_\d+','',n); n=re.sub(r'EEEv$','',n)
    return n
for k in sorted(set(a)|set(b)):
    if pat and not re.search(pat,k[0]): continue
    x=a.get(k,{}); y=b.get(k,{})
    print(f"{k[1]:7s} {short(k[0])[:90]:90s} regs {x.get('regs')} -> {y.get('regs')}  spill {x.get('spill')} -> {y.get('spill')}")
