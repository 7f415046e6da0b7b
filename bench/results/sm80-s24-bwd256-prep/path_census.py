#!/usr/bin/env python3
"""Executed-path instruction census of one kernel from `nvdisasm -g -c` text (line info on):
sums the opcodes over address ranges, each with a multiplicity (a rolled loop's trip count), and
attributes them to source lines. The ranges of the default NoMask whole-tile item are in
NOTES.md (old and new SASS have their own addresses).

  nvdisasm -g -c k.cubin > k.sass
  python3 path_census.py k.sass "[(0x6240,0x68b0,1),(0xb9a0,0xbd10,4)]" [--lines]
"""
import collections
import re
import sys

OPCODES = ["HMMA", "LDSM", "LOP3", "NOP", "BRA", "IMAD", "ISETP", "PLOP3", "IADD3", "LEA", "SHF",
           "VIADD", "STS", "LDS", "REDG", "LDGSTS"]


def instructions(path):
    """[(address, opcode, (file, line))] in file order."""
    result, line = [], None
    for text in open(path):
        source = re.match(r'\s*//## File "([^"]+)", line (\d+)', text)
        if source:
            line = (source.group(1).split("/")[-1], int(source.group(2)))
            continue
        instruction = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", text)
        if instruction:
            op = re.sub(r"^@!?U?P\w+\s+", "", instruction.group(2).strip()).split()[0].split(".")[0]
            result.append((int(instruction.group(1), 16), op, line))
    return result


def main():
    ranges = eval(sys.argv[2])  # [(first address, last address, multiplicity)]
    totals, by_line = collections.Counter(), collections.defaultdict(collections.Counter)
    for address, op, line in instructions(sys.argv[1]):
        for first, last, times in ranges:
            if first <= address <= last:
                totals[op] += times
                by_line[line][op] += times
    print("total", sum(totals.values()))
    print(" ".join(f"{op}={totals[op]}" for op in OPCODES))
    if "--lines" in sys.argv:
        for line, counts in sorted(by_line.items(), key=lambda kv: -sum(kv[1].values()))[:40]:
            where = f"{line[0]}:{line[1]}" if line else "?"
            print(f"{where:36} " + " ".join(f"{op}{counts[op]}" for op in OPCODES if counts[op]))


if __name__ == "__main__":
    main()
