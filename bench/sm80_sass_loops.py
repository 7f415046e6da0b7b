#!/usr/bin/env python3
"""Instruction census of the loops of CUDA kernels, from `cuobjdump -sass` text: every backward
branch closes a loop [target, branch]; each loop of at least --min-length instructions is listed
with its instruction count and the counts of the classes that matter to the attention kernels
(HMMA, LDSM, LDGSTS, MUFU, ...). Used to compare key-tile loops of tile variants before device
time (bench/results/sm80-odd-h100-2026-11-23-s10/NOTES.md) and to check that a change left
other kernels' loops instruction-for-instruction the same.

  cuobjdump -sass build/x.o > x.sass
  python3 bench/sm80_sass_loops.py x.sass --kernel NarrowForwardConfigILi128 --min-length 300
"""
import argparse
import collections
import re

CLASSES = ["HMMA", "LDSM", "LDGSTS", "MUFU", "FFMA", "FMUL", "FADD", "FMNMX", "F2FP", "SHFL",
           "BAR", "LDS", "STS", "IMAD", "LOP3", "IADD3", "LEA", "ISETP", "FSETP", "FSEL", "SEL",
           "BRA", "LDL", "STL", "DEPBAR", "LDGDEPBAR", "MOV"]


def kernels(path):
    """{mangled name: [(address, instruction text)]} in file order."""
    result, current = collections.OrderedDict(), None
    for line in open(path):
        name = re.search(r"Function : (\S+)", line)
        if name:
            current = name.group(1)
            result[current] = []
            continue
        instruction = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
        if instruction and current:
            result[current].append((int(instruction.group(1), 16), instruction.group(2)))
    return result


def opcode(text):
    """The opcode without predicate and modifiers: '@!P0 HMMA.16816.F32' -> 'HMMA'."""
    return re.sub(r"^@!?U?P\w+\s+", "", text).split()[0].split(".")[0]


def loops(instructions):
    """(first, last) index pairs of the bodies closed by a backward branch."""
    index_of = {address: i for i, (address, _) in enumerate(instructions)}
    for i, (address, text) in enumerate(instructions):
        if "BRA" not in text:
            continue
        target = re.search(r"0x([0-9a-f]+)", text)
        if target and int(target.group(1), 16) < address and int(target.group(1), 16) in index_of:
            yield index_of[int(target.group(1), 16)], i


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sass")
    parser.add_argument("--kernel", default="", help="substring of the mangled kernel name")
    parser.add_argument("--min-length", type=int, default=300)
    args = parser.parse_args()
    for name, instructions in kernels(args.sass).items():
        if args.kernel not in name:
            continue
        print(f"== {name}  ({len(instructions)} instructions)")
        for first, last in loops(instructions):
            body = instructions[first:last + 1]
            if len(body) < args.min_length:
                continue
            counts = collections.Counter(opcode(text) for _, text in body)
            print(f"  loop {body[0][0]:#x}-{body[-1][0]:#x}: {len(body)} instr; " +
                  " ".join(f"{c}={counts[c]}" for c in CLASSES if counts[c]))


if __name__ == "__main__":
    main()
