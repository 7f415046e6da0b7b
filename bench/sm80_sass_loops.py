#!/usr/bin/env python3
"""Instruction census of the loops of CUDA kernels, from `cuobjdump -sass` text: every backward
branch closes a loop [target, branch]; each loop of at least --min-length instructions is listed
with its instruction count and the counts of the classes that matter to the attention kernels
(HMMA, LDSM, LDGSTS, MUFU, ...). Used to compare key-tile loops of tile variants before device
time (bench/results/sm80-odd-h100-2026-11-23-s10/NOTES.md) and to check that a change left
other kernels' loops instruction-for-instruction the same.

  cuobjdump -sass build/x.o > x.sass
  python3 bench/sm80_sass_loops.py x.sass --kernel NarrowForwardConfigILi128 --min-length 300

--stalls adds each loop's sum of the instructions' stall counts (the 4-bit field at bits 41-44 of
the second 64-bit word of each sm_70+ instruction, the cycles the scheduler waits before issuing
the warp's next instruction; dynamic scoreboard waits not included): a static issue-cycle
estimate. h15-odd80 (bench/results/sm80-odd-h100-2026-11-23-s15/NOTES.md): a D = 129 loop with 20
fewer instructions but 1.2 % more stall cycles measured 1.2 % slower.

--mufu-runs adds each loop's longest run of MUFU with no HMMA between them: the exponentials a
warp issues with its tensor work waiting (one warp-wide MUFU holds its scheduler's MUFU unit 8
cycles). h15-d72 / h15-eupv (bench/results/sm80-d72-h100-2026-11-23-s15/, sm80-eupv-h100-2026-11-
23-s15/NOTES.md): where ptxas put a tile's every MUFU.EX2 before the first P·V HMMA (a run of
~all of them, the "wall"), ExponentsUnderPv (src/cuda/sm80/tile_config.hpp) measured +3-7 %;
where the runs were already 10-12, within the noise.
"""
import argparse
import collections
import re

CLASSES = ["HMMA", "LDSM", "LDGSTS", "MUFU", "FFMA", "FMUL", "FADD", "FMNMX", "F2FP", "SHFL",
           "BAR", "LDS", "STS", "IMAD", "LOP3", "IADD3", "LEA", "ISETP", "FSETP", "FSEL", "SEL",
           "BRA", "LDL", "STL", "DEPBAR", "LDGDEPBAR", "MOV"]


STALL_SHIFT, STALL_MASK = 41, 0xF  # the stall count in an instruction's second 64-bit word


def kernels(path, stalls=None):
    """{mangled name: [(address, instruction text)]} in file order; `stalls`, a dict, gets
    {(name, address): stall count} from the encodings' control words."""
    result, current, last = collections.OrderedDict(), None, None
    for line in open(path):
        name = re.search(r"Function : (\S+)", line)
        if name:
            current = name.group(1)
            result[current] = []
            continue
        instruction = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
        if instruction and current:
            result[current].append((int(instruction.group(1), 16), instruction.group(2)))
            last = result[current][-1][0]
            continue
        control = re.match(r"\s*/\* (0x[0-9a-f]{16}) \*/\s*$", line)
        if control and current and last is not None and stalls is not None:
            stalls[(current, last)] = (int(control.group(1), 16) >> STALL_SHIFT) & STALL_MASK
            last = None
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


def longest_mufu_run(opcodes):
    """The most MUFU in a row with no HMMA between them (other instructions do not end a run)."""
    run = longest = 0
    for op in opcodes:
        if op == "HMMA":
            run = 0
        elif op == "MUFU":
            run += 1
            longest = max(longest, run)
    return longest


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sass")
    parser.add_argument("--kernel", default="", help="substring of the mangled kernel name")
    parser.add_argument("--min-length", type=int, default=300)
    parser.add_argument("--stalls", action="store_true",
                        help="add each loop's sum of stall counts (a static issue-cycle estimate)")
    parser.add_argument("--mufu-runs", action="store_true",
                        help="add each loop's longest run of MUFU with no HMMA between them")
    args = parser.parse_args()
    stalls = {} if args.stalls else None
    for name, instructions in kernels(args.sass, stalls).items():
        if args.kernel not in name:
            continue
        print(f"== {name}  ({len(instructions)} instructions)")
        for first, last in loops(instructions):
            body = instructions[first:last + 1]
            if len(body) < args.min_length:
                continue
            opcodes = [opcode(text) for _, text in body]
            counts = collections.Counter(opcodes)
            extra = ""
            if stalls is not None:
                extra = f", stalls {sum(stalls.get((name, address), 0) for address, _ in body)}"
            if args.mufu_runs:
                extra += f", longest MUFU run {longest_mufu_run(opcodes)}"
            print(f"  loop {body[0][0]:#x}-{body[-1][0]:#x}: {len(body)} instr{extra}; " +
                  " ".join(f"{c}={counts[c]}" for c in CLASSES if counts[c]))


if __name__ == "__main__":
    main()
