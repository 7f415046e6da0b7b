# h13-bwd80c: every kernel of two objects, paired by demangled name with the v28 wrapper
# (MaskedItemSourcesInSharedMemory<...>) taken out of the new object's names; the table structs
# (LargeSharedMemoryBackwardConfig<256>) keep their names. kernels() is bench/sass_compare.py's.
# usage: python3 sasspair.py OLD.o NEW.o
import re, subprocess, sys
sys.path.insert(0, '/work/main/bench')
from sass_compare import kernels
def demangle(name):
    return subprocess.run(['c++filt'], input=name, capture_output=True, text=True).stdout.strip()
def strip_wrapper(name):
    key = 'fattn::detail::sm80::MaskedItemSourcesInSharedMemory<'
    while key in name:
        start = name.index(key)
        depth, i = 1, start + len(key)
        while depth:
            depth += {'<': 1, '>': -1}.get(name[i], 0)
            i += 1
        name = name[:start] + name[start + len(key):i - 1].rstrip() + name[i:]
    return name
old, new = kernels(sys.argv[1]), kernels(sys.argv[2])
old_by = {demangle(k): k for k in old}
new_by = {strip_wrapper(demangle(k)): k for k in new}
for name in sorted(set(old_by) | set(new_by)):
    short = name.replace('fattn::detail::sm80::', '')
    short = re.sub(r'\(fattn::detail::sm80::BackwardParams.*', '', short)
    short = short.replace('backward_kernel<', '')[:150]
    if name not in old_by: print('only new:', short)
    elif name not in new_by: print('only old:', short)
    else:
        a, b = old[old_by[name]], new[new_by[name]]
        print('same' if a == b else 'DIFF', len(a), len(b), short)
