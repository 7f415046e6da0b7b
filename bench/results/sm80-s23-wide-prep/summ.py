import sys,re,subprocess
arch=None;fn=None;spill=None
for line in sys.stdin:
    m=re.search(r"Compiling entry function '(\S+)' for '(sm_\w+)'",line)
    if m: fn,arch=m.group(1),m.group(2); continue
    m=re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads",line)
    if m: spill=(m.group(1),m.group(2),m.group(3)); continue
    m=re.search(r"Used (\d+) registers",line)
    if m and fn:
        name=subprocess.run(['c++filt',fn],capture_output=True,text=True).stdout.strip()
        name=re.sub(r'fattn::detail::sm80::','',name)
        print(f"{arch} regs={m.group(1)} stack/spillst/spillld={spill} {name[:220]}")
        fn=None; continue
    if 'error' in line or 'warning' in line: print(line.rstrip())
