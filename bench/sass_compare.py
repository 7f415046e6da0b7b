#!/usr/bin/env python3
"""Per-kernel SASS of two compiled objects (cubin, .o or .so), compared kernel by kernel.

  python3 bench/sass_compare.py OLD.o NEW.o
  python3 bench/sass_compare.py OLD.o NEW.o --strip-wrapper fattn::detail::sm80::Wrapper \
      [--strip-wrapper ...] [--tag-wrapped] [--drop TEXT ...] [--width N]

Prints one line per kernel: `same` or `DIFF` with its instruction count, or `only old` /
`only new`. Addresses and encodings are dropped, so two builds of the same code from different
trees compare equal. This is how a tuning change shows it leaves the kernels it does not target
untouched (docs/perf-notes.md cites it as "SASS identical"). Needs `cuobjdump` (CUDA toolkit, or
`pip install nvidia-cuda-cuobjdump`) and `c++filt`.

--strip-wrapper TEMPLATE (a qualified class template, repeatable) pairs the kernels by demangled
name with `TEMPLATE<X>` / `TEMPLATE<X, further arguments>` replaced by X in NEW's names, so a kernel whose
configuration only gained a wrapper option is compared with OLD's unwrapped one. Each line then
has both instruction counts and the name without the wrapper's namespace; --tag-wrapped adds
`(wrapped)` where NEW's name had the wrapper, --drop removes a text from the printed names (e.g.
`backward_kernel<`), --width cuts them (default 150). --rename FROM=TO (repeatable) replaces text
in NEW's demangled names before pairing, for a template parameter added with its default. The thirteenth session's sasspair.py
copies (bench/results/sm80-bwd-h100-2026-11-23-s13b, -s13c) call this.
"""

import argparse
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


def demangled(mangled):
    return subprocess.run(["c++filt"], input=mangled, capture_output=True,
                          text=True).stdout.strip()


def strip_wrappers(name, templates):
    """`T<X>` and `T<X, more arguments>` -> X for each template T (X may hold nested <>)."""
    for template in templates:
        key = template + "<"
        while key in name:
            start = name.index(key)
            depth, end, first_end = 1, start + len(key), None
            while depth:
                character = name[end]
                depth += {"<": 1, ">": -1, "(": 1, ")": -1}.get(character, 0)
                if character == "," and depth == 1 and first_end is None:
                    first_end = end
                end += 1
            inner = name[start + len(key):(first_end or end - 1)].rstrip()
            name = name[:start] + inner + name[end:]
    return name


def renamed(name, replacements):
    """NEW's name with each FROM=TO replacement applied (e.g. a template parameter that was
    added with its default: `--rename "false, false>(=false>("`)."""
    for replacement in replacements:
        source, target = replacement.split("=", 1)
        name = name.replace(source, target)
    return name


def compare_unwrapped(old, new, args):
    old_by = {demangled(k): k for k in old}
    new_by = {renamed(strip_wrappers(demangled(k), args.strip_wrapper), args.rename): k
              for k in new}
    namespaces = {t.rsplit("::", 1)[0] + "::" for t in args.strip_wrapper if "::" in t}
    for name in sorted(set(old_by) | set(new_by)):
        short = name
        for text in sorted(namespaces) + args.drop:
            short = short.replace(text, "")
        short = short[:args.width]
        if name not in old_by:
            print("only new:", short)
        elif name not in new_by:
            print("only old:", short)
        else:
            a, b = old[old_by[name]], new[new_by[name]]
            verdict = "same" if a == b else "DIFF"
            if args.tag_wrapped:
                wrapped = any(t in demangled(new_by[name]) for t in args.strip_wrapper)
                print(verdict, len(a), len(b), "(wrapped)" if wrapped else "", short)
            else:
                print(verdict, len(a), len(b), short)


def main():
    parser = argparse.ArgumentParser(usage=__doc__)
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--strip-wrapper", action="append", default=[])
    parser.add_argument("--tag-wrapped", action="store_true")
    parser.add_argument("--drop", action="append", default=[])
    parser.add_argument("--width", type=int, default=NAME_WIDTH)
    parser.add_argument("--rename", action="append", default=[])
    args = parser.parse_args()
    old, new = kernels(args.old), kernels(args.new)
    if args.strip_wrapper or args.rename:
        compare_unwrapped(old, new, args)
        return
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
