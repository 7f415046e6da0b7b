# h13-bwd80b: every kernel of two objects, paired by demangled name with the v27 wrapper
# (MaskedStridedItemLoads<..., bool>) taken out of the new object's names, so the 256 kernels
# whose configuration only gained the wrapper are compared with HEAD's. kernels() is
# bench/sass_compare.py's. usage: python3 sasspair.py OLD.o NEW.o
import re
import subprocess
import sys
sys.path.insert(0, __file__.rsplit('/', 1)[0] + '/../..')
from sass_compare import kernels


def demangle(name):
    return subprocess.run(['c++filt'], input=name, capture_output=True, text=True).stdout.strip()


def strip_wrapper(name):
    # sm80::MaskedStridedItemLoads<X, false> -> X (X may hold nested <>).
    key = 'fattn::detail::sm80::MaskedStridedItemLoads<'
    while key in name:
        start = name.index(key)
        depth, i = 1, start + len(key)
        while depth:
            depth += {'<': 1, '>': -1}.get(name[i], 0)
            i += 1
        inner = name[start + len(key):i - 1]
        inner = re.sub(r', (true|false)$', '', inner)
        name = name[:start] + inner + name[i:]
    return name


old, new = kernels(sys.argv[1]), kernels(sys.argv[2])
old_by = {demangle(k): k for k in old}
new_by = {strip_wrapper(demangle(k)): k for k in new}
for name in sorted(set(old_by) | set(new_by)):
    short = name.replace('fattn::detail::sm80::', '')
    short = re.sub(r'\(fattn::detail::sm80::BackwardParams.*', '', short)[:170]
    if name not in old_by:
        print('only new:', short)
    elif name not in new_by:
        print('only old:', short)
    else:
        a, b = old[old_by[name]], new[new_by[name]]
        wrapped = 'MaskedStridedItemLoads' in demangle(new_by[name])
        print('same' if a == b else 'DIFF', len(a), len(b), '(wrapped)' if wrapped else '', short)
