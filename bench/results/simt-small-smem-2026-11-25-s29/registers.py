import re,sys,glob,subprocess,os
d=sys.argv[1]
for log in sorted(glob.glob(d+'/*.o.log')):
    cur=None; out=[]
    for line in open(log):
        m=re.search(r"Compiling entry function '(\S+)' for '(\S+)'",line)
        if m: cur=m.group(1); continue
        m=re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads",line)
        if m and cur: spill=(m.group(1),m.group(2)); continue
        m=re.search(r"Used (\d+) registers",line)
        if m and cur:
            name=subprocess.run(['c++filt'],input=cur,capture_output=True,text=True).stdout.strip()
            name=name.replace('fattn::detail::simt::','')
            name=re.sub(r'\(.*\)$','',name).replace('void ','')
            out.append(f"  {name:70s} regs {m.group(1):>3} spill {spill[0]}/{spill[1]}")
            cur=None
    print(os.path.basename(log)[:-6]); print("\n".join(out))
