import re,sys,subprocess
obj=sys.argv[1]; pat=sys.argv[2]
txt=subprocess.run(['cuobjdump','-sass',obj],capture_output=True,text=True).stdout
parts=re.split(r'\n\s+Function : (\S+)',txt)
for i in range(1,len(parts),2):
    name=parts[i]; body=parts[i+1]
    if not re.search(pat,name): continue
    ins=re.findall(r'/\*[0-9a-f]{4,}\*/\s+([^;]*);',body)
    cnt=lambda p: sum(1 for x in ins if re.search(p,x))
    dn=subprocess.run(['c++filt',name],capture_output=True,text=True).stdout.strip()
    mask='NoMask' if 'NoMask' in dn else 'WindowMask'
    print(dn[40:110], mask, 'instr',len(ins),'HMMA',cnt(r'\bHMMA'),'LDSM',cnt(r'\bLDSM'),'RED',cnt(r'\bRED'),'LDL',cnt(r'\bLDL'),'STL',cnt(r'\bSTL'),'BAR',cnt(r'\bBAR'))
