#!/usr/bin/env python3
"""The key loop of one Hopper forward kernel in two `cuobjdump -sass` listings, compared.

  python3 sass_key_loop.py OLD.sass NEW.sass HGMMA_COUNT KERNEL_NAME_PART [--diff]

The key loop is the smallest back-branch region holding HGMMA_COUNT HGMMA instructions (D = 128:
16, D = 64: 12, D = 256: 21 = 16 Q·Kᵀ k-steps + 5 P·V). Prints both lengths, whether the opcode
multisets are equal (else what each has more of) and in how many positions the opcode order
differs; --diff prints the opcode diff. Used in v29 (NOTES.md) to keep tail changes from moving
the key loop, as v26 asked.
"""
import difflib
import re
import sys
from collections import Counter

FUNCTION = re.compile(r"Function : (\S+)")
INSTRUCTION = re.compile(r"\s+/\*([0-9a-f]+)\*/\s+(.*?)\s*;")
BRANCH_TARGET = re.compile(r"\bBRA\S* .*?0x([0-9a-f]+)")
PREDICATE = re.compile(r"^@!?U?P[0-9T] +")


def kernels(path):
    found, name = {}, None
    for line in open(path):
        m = FUNCTION.search(line)
        if m:
            name = m.group(1)
            found[name] = []
            continue
        m = INSTRUCTION.match(line)
        if m and name:
            found[name].append((int(m.group(1), 16), m.group(2)))
    return found


def key_loop(instructions, hgmma_count):
    best = None
    for address, text in instructions:
        m = BRANCH_TARGET.search(text)
        if not m or int(m.group(1), 16) >= address:
            continue
        target = int(m.group(1), 16)
        body = [t for a, t in instructions if target <= a <= address]
        if sum("HGMMA" in t for t in body) == hgmma_count and (best is None or len(body) < len(best)):
            best = body
    return best


def opcodes(body):
    return [PREDICATE.sub("", t).split(" ")[0] for t in body]


def main():
    old_path, new_path, count, part = sys.argv[1:5]
    loops = []
    for path in (old_path, new_path):
        listing = kernels(path)
        name = next(k for k in listing if part in k)
        loops.append(opcodes(key_loop(listing[name], int(count))))
    old, new = loops
    more_old, more_new = Counter(old) - Counter(new), Counter(new) - Counter(old)
    same_set = not more_old and not more_new
    moved = sum(a != b for a, b in zip(old, new))
    print(f"{part}: loop {len(old)} / {len(new)} instructions; multiset "
          f"{'same' if same_set else (dict(more_old), dict(more_new))}; order "
          f"{'same' if old == new else f'differs in {moved} positions'}")
    if "--diff" in sys.argv:
        for line in difflib.unified_diff(old, new, lineterm="", n=0):
            print(line)


if __name__ == "__main__":
    main()
