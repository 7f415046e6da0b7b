import re,sys,subprocess
# usage: regs.py log...  -> per entry function: registers, spill stores/loads (short names)
def short(m):
    d=subprocess.run(['c++filt'],input=m,capture_output=True,text=True).stdout.strip()
    d=d.replace('fattn::detail::sm80::','').replace('fattn::detail::','')
    d=re.sub(r'\(ForwardParams.*','',d).replace('void ','')
    return d
def parse(path):
    res={};cur=None;last=None
    for l in open(path):
        m=re.search(r"Compiling entry function '(\S+)'",l)
        if m: cur=m.group(1); continue
        m=re.search(r"Function properties for (\S+)",l)
        if m: last=m.group(1); continue
        m=re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads",l)
        if m and last==cur: res.setdefault(cur,{})['spill']=(int(m.group(1)),int(m.group(2)))
        m=re.search(r"Used (\d+) registers",l)
        if m and cur: res.setdefault(cur,{})['regs']=int(m.group(1))
    return res
logs=sys.argv[1:]
data=[parse(p) for p in logs]
names=sorted(set().union(*data))
print('kernel | '+' | '.join(p.split('/')[-1].split('.')[0] for p in logs))
for n in names:
    cells=[]
    for d in data:
        e=d.get(n)
        cells.append('-' if not e else f"{e.get('regs')}r {e['spill'][0]}/{e['spill'][1]}")
    print(short(n)[:95],'|',' | '.join(cells))
