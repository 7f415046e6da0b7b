import sys, re
# ptxas -v logs -> kernel | arch | regs | spill stores/loads
for path in sys.argv[1:]:
    name = arch = None
    for line in open(path):
        m = re.search(r"Compiling entry function '(\S+)' for '(sm_\w+)'", line)
        if m:
            name, arch = m.group(1), m.group(2)
            continue
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and name:
            spill = f"{m.group(1)}/{m.group(2)}"
        m = re.search(r"Used (\d+) registers", line)
        if m and name:
            short = re.sub(r"_ZN5fattn6detail4sm8014forward_kernelINS1_", "", name)
            short = re.sub(r"EEvNS1_13ForwardParamsET1_$", "", short)
            print(f"{arch} regs {m.group(1):>3} spill {spill:>7}  {short}")
            name = None
