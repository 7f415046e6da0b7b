#!/usr/bin/env python3
"""Per-kernel SASS of two compiled objects (cubin, .o or .so), compared kernel by kernel.

  python3 bench/sass_compare.py OLD.o NEW.o

Prints one line per kernel: `same` or `DIFF` with its instruction count, or `only old` /
`only new`. Addresses and encodings are dropped, so two builds of the same code from different
trees compare equal. This is how a tuning change shows it leaves the kernels it does not target
untouched (docs/perf-notes.md cites it as "SASS identical"). Needs `cuobjdump` (CUDA toolkit, or
`pip install nvidia-cuda-cuobjdump`) and `c++filt`.
"""

import re
import subprocess
import sys

FUNCTION_HEADER = re.compile(r"Function : (\S+)")
# "        /*0a70*/   HMMA.16816.F32 R4, R8, R12, R4 ;   /* 0x... */": keep the instruction only.
INSTRUCTION_LINE = re.compile(r"\s*/\*[0-9a-f]+\*/\s*(.*?)\s*;?\s*/\*")
# Demangled names are cut here: a configuration's option chain runs to hundreds of characters.
NAME_WIDTH = 150


def kernels(path):
    """Maps each kernel's mangled name to its list of instructions."""
    sass = subprocess.run(["cuobjdump", "-sass", path], capture_output=True, text=True,
                          check=True).stdout
    result, current = {}, None
    for line in sass.splitlines():
        header = FUNCTION_HEADER.search(line)
        if header:
            current = header.group(1)
            result[current] = []
            continue
        instruction = INSTRUCTION_LINE.match(line)
        if current and instruction:
            result[current].append(instruction.group(1))
    return result


def readable(mangled):
    name = subprocess.run(["c++filt"], input=mangled, capture_output=True, text=True).stdout
    return name.strip().replace("fattn::detail::", "")[:NAME_WIDTH]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    old, new = kernels(sys.argv[1]), kernels(sys.argv[2])
    for name in sorted(set(old) | set(new)):
        if name not in old:
            print("only new:", readable(name))
        elif name not in new:
            print("only old:", readable(name))
        else:
            verdict = "same" if old[name] == new[name] else "DIFF"
            print(verdict, len(old[name]), readable(name))


if __name__ == "__main__":
    main()
