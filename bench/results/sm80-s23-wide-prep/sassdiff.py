import sys,re,subprocess,collections
def funcs(obj,arch):
    out=subprocess.run(['cuobjdump','-sass','-arch',arch,obj],capture_output=True,text=True).stdout
    d=collections.OrderedDict();cur=None
    for l in out.splitlines():
        m=re.search(r'Function : (\S+)',l)
        if m: cur=m.group(1); d[cur]=[]; continue
        m=re.match(r'\s+/\*[0-9a-f]{4,}\*/\s+(.*?);',l)
        if m and cur: d[cur].append(m.group(1).strip())
    return d
for arch in ('sm_80','sm_90a'):
    a=funcs(sys.argv[1],arch); b=funcs(sys.argv[2],arch)
    for f in sorted(set(a)|set(b)):
        n=subprocess.run(['c++filt',f],capture_output=True,text=True).stdout.strip().replace('fattn::detail::','')[:130]
        if f not in a: print(arch,'ADDED  ',n,len(b[f])); continue
        if f not in b: print(arch,'REMOVED',n); continue
        print(arch,'same   ' if a[f]==b[f] else 'DIFFER ',n,len(a[f]),len(b[f]))
