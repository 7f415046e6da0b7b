#!/usr/bin/env python3
"""Writes one CUDA translation unit per kernel configuration: the single source of truth for
which (family x direction x head-dim bucket x dtype) instances exist and for which archs.

How the pieces fit together
---------------------------
* FAMILIES below lists every kernel family. Each family owns
    - a *declarations header* (host-compilable) that declares, in the family's namespace,
          template <int kHeadDim, class Element> Status launch_forward(const AttentionArgs&);
          template <int kHeadDim, class Element> Status launch_backward(const AttentionArgs&);
    - one *definitions header* per direction (device code: kernels + the launch template body).
* For every combination this script writes
      src/cuda/instantiations/<family>_<fwd|bwd>_d<HEADDIM>_<fp32|fp16|bf16>.cu
  holding only an include of the definitions header and one explicit instantiation, so each
  configuration compiles in its own nvcc process (parallel builds, small files, and a change in
  one family recompiles only that family).
* It also writes src/cuda/instantiations/instances.cmake: one `fattn_cuda_instance(...)` line per
  file, naming family, direction, head dim, dtype, archs and file. src/cuda/CMakeLists.txt
  includes it, drops what the pruning options exclude
      FATTN_CUDA_FAMILIES   (default simt;sm80;sm90)
      FATTN_CUDA_HEAD_DIMS  (default: every bucket)
      FATTN_CUDA_DTYPES     (default fp32;fp16;bf16)
  compiles the rest with the family's -gencode flags, and writes a table of the instances it
  kept (build dir: generated/instance_table.inc). src/cuda/common/instances.{hpp,cu} turn that
  table into the run-time registry: a family's dispatcher calls `launch_instance(...)`, which
  picks the smallest compiled head-dim bucket >= head_dim, and the selector asks the same
  registry (`why_no_compiled_instance`), so a pruned configuration is reported `unsupported`
  with the option that removed it, never linked against.
* A bucket B must accept every head_dim <= B (kernels pad the head dimension up to B); the
  dispatcher uses the smallest compiled bucket that is large enough.

Usage:  tools/codegen/generate_instantiations.py          # (re)write the files
        tools/codegen/generate_instantiations.py --check  # exit 1 when the files on disk differ
"""

import argparse
import pathlib
import sys

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
OUTPUT_DIR = REPO_ROOT / "src" / "cuda" / "instantiations"

DTYPES = {
    # name in file names and options -> (C++ element type, fattn::DType enumerator)
    "fp32": ("float", "float32"),
    "fp16": ("__half", "float16"),
    "bf16": ("__nv_bfloat16", "bfloat16"),
}
DIRECTIONS = {"fwd": "launch_forward", "bwd": "launch_backward"}

FAMILIES = {
    # CUDA-core fp32 arithmetic (no tensor cores). Buckets: the per-thread register tile holds
    # head_dim/16 output columns, so buckets are multiples of 16; few of them, because every
    # bucket costs 2 directions x 3 dtypes x 2 archs of nvcc time in CI (2 cores). Odd head dims
    # pad up to the next bucket.
    "simt": {
        "namespace": "fattn::detail::simt",
        "declarations": "cuda/simt/launch.hpp",
        "definitions": {"fwd": "cuda/simt/forward.cuh", "bwd": "cuda/simt/backward.cuh"},
        "directions": ["fwd", "bwd"],
        "head_dims": [32, 64, 128, 256],
        "dtypes": ["fp32", "fp16", "bf16"],
        "archs": ["80", "90a"],
    },
    # FlashAttention-2-class tensor-core kernels (mma.sync). Owned by the sm80 helper; sm_90a is
    # compiled too because sm_80 machine code does not run on Hopper.
    "sm80": {
        "namespace": "fattn::detail::sm80",
        "declarations": "cuda/sm80/launch.hpp",
        "definitions": {"fwd": "cuda/sm80/forward.cuh", "bwd": "cuda/sm80/backward.cuh"},
        "directions": ["fwd", "bwd"],
        # Buckets are multiples of 64: swizzled shared-memory rows are whole 128-byte groups, and
        # the kernels skip the 16-wide k-steps past round_up(head_dim, 16) at run time, so an odd
        # head dim costs about its own width, not its bucket's (src/cuda/sm80/tile_config.hpp).
        "head_dims": [64, 128, 192, 256],
        "dtypes": ["fp16", "bf16"],
        "archs": ["80", "90a"],
    },
    # Hopper kernels (TMA, wgmma): sm_90a only. Owned by the sm90 helper.
    "sm90": {
        "namespace": "fattn::detail::sm90",
        "declarations": "cuda/sm90/launch.hpp",
        "definitions": {"fwd": "cuda/sm90/forward.cuh", "bwd": "cuda/sm90/backward.cuh"},
        "directions": ["fwd", "bwd"],
        # Buckets are multiples of 64: TMA boxes are 64 columns (one 128-byte swizzle row), and
        # the tensor map's inner extent is the real head dim, so columns past it read as zeros
        # (tile shapes and why: src/cuda/sm90/tile_config.hpp).
        "head_dims": [64, 128, 192, 256],
        # The backward exists for buckets 64, 128 and 256 (src/cuda/sm90/backward_tile_config.hpp:
        # 192's head-dim halves do not fit a wgmma descriptor); head dims 129..192 find no sm90
        # backward instance and the selector picks cuda_sm80.
        "head_dims_by_direction": {"bwd": [64, 128, 256]},
        "dtypes": ["fp16", "bf16"],
        "archs": ["90a"],
    },
}

HEADER_COMMENT = "// Generated by tools/codegen/generate_instantiations.py. Do not edit."


def instances():
    """Every (family, direction, head_dim, dtype) combination, in a stable order."""
    for family, spec in FAMILIES.items():
        for direction in spec["directions"]:
            head_dims = spec.get("head_dims_by_direction", {}).get(direction, spec["head_dims"])
            for head_dim in head_dims:
                for dtype in spec["dtypes"]:
                    yield family, direction, head_dim, dtype


def file_name(family, direction, head_dim, dtype):
    return f"{family}_{direction}_d{head_dim}_{dtype}.cu"


def translation_unit(family, direction, head_dim, dtype):
    spec = FAMILIES[family]
    element = DTYPES[dtype][0]
    function = DIRECTIONS[direction]
    return (
        f"{HEADER_COMMENT}\n"
        f'#include "{spec["definitions"][direction]}"\n\n'
        f"template fattn::Status {spec['namespace']}::{function}<{head_dim}, {element}>(\n"
        f"    const fattn::detail::AttentionArgs&);\n"
    )


def cmake_manifest():
    lines = [
        "# Generated by tools/codegen/generate_instantiations.py. Do not edit.",
        "# fattn_cuda_instance(family direction head_dim dtype archs file)",
    ]
    for family, spec in FAMILIES.items():
        lines.append(
            f'fattn_cuda_family({family} "{spec["namespace"]}" "{spec["declarations"]}" '
            f'"{";".join(spec["archs"])}")'
        )
    for family, direction, head_dim, dtype in instances():
        archs = ";".join(FAMILIES[family]["archs"])
        name = file_name(family, direction, head_dim, dtype)
        lines.append(
            f'fattn_cuda_instance({family} {direction} {head_dim} {dtype} "{archs}" {name})'
        )
    return "\n".join(lines) + "\n"


def expected_files():
    files = {"instances.cmake": cmake_manifest()}
    for combination in instances():
        files[file_name(*combination)] = translation_unit(*combination)
    return files


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="exit non-zero when the generated files on disk are stale")
    args = parser.parse_args()

    expected = expected_files()
    on_disk = {p.name: p.read_text() for p in OUTPUT_DIR.glob("*")
               if p.suffix == ".cu" or p.name == "instances.cmake"} if OUTPUT_DIR.exists() else {}
    stale = sorted(n for n in expected if on_disk.get(n) != expected[n])
    extra = sorted(n for n in on_disk if n not in expected)

    if args.check:
        for name in stale:
            print(f"stale or missing: src/cuda/instantiations/{name}")
        for name in extra:
            print(f"not generated by this script: src/cuda/instantiations/{name}")
        if stale or extra:
            print("run tools/codegen/generate_instantiations.py and commit the result")
            return 1
        print(f"{len(expected)} generated files are current")
        return 0

    OUTPUT_DIR.mkdir(parents=True, exist_ok=True)
    for name in extra:
        (OUTPUT_DIR / name).unlink()
    for name in stale:
        (OUTPUT_DIR / name).write_text(expected[name])
    print(f"wrote {len(stale)} file(s), removed {len(extra)}, {len(expected)} total")
    return 0


if __name__ == "__main__":
    sys.exit(main())
