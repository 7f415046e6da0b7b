"""bench/compare.py end to end on tiny CPU problems, so the benchmark script cannot rot.

Needs torch (it compares against PyTorch's SDPA): skipped, with the reason, where it is missing.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="torch is not installed: bench/compare.py not exercised")

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "compare.py"


def _load_compare():
    spec = importlib.util.spec_from_file_location("fattn_bench_compare", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_compare_runs_records_refusals_and_writes_outputs(tmp_path):
    compare = _load_compare()
    plots = importlib.util.find_spec("matplotlib") is not None
    prefix = tmp_path / "smoke"
    argv = ["--device", "cpu", "--sections", "sweep,head-dim,cpu", "--tokens", "128",
            "--width", "64", "--seqlens", "32,64", "--head-dims", "32",
            "--sweep-head-dims", "16,24", "--sweep-seqlen", "32", "--cpu-seqlens", "64",
            "--cpu-threads", "1", "--cpu-reps", "1", "--dtype", "fp32", "--sweep-dtype", "fp32",
            "--fattn-backends", "cpu_flash,cpu_flash+deterministic,cuda_sm90", "--sdpa-backends", "math", "--rounds", "3",
            "--out", str(prefix)] + ([] if plots else ["--no-plot"])
    assert compare.main(argv) == 0
    report = json.loads(Path(f"{prefix}.json").read_text())
    sweep = report["sweep"]
    assert {r["impl"] for r in sweep} == {"fattn:cpu_flash", "fattn:cpu_flash+deterministic",
                                          "fattn:cuda_sm90", "sdpa:math"}
    # The deterministic contestant times the backward's mode only: fwd+bwd rows, no fwd rows.
    deterministic = [r for r in sweep if r["impl"] == "fattn:cpu_flash+deterministic"]
    assert deterministic and {r["mode"] for r in deterministic} == {"fwd+bwd"}
    assert all(r["status"] == "ok" and r["tflops"] > 0 for r in deterministic)
    ran = [r for r in sweep if r["impl"] == "fattn:cpu_flash"]
    assert ran and all(r["status"] == "ok" and r["tflops"] > 0 for r in ran)
    assert all(r["rel_err_vs_sdpa"] < 1e-5 for r in ran)
    # Timed in rounds: every round recorded, the reported time their median.
    for r in ran:
        rounds = sorted(r["extra"]["round_ms"])
        assert len(rounds) == 3 and r["ms"] == pytest.approx(rounds[1], rel=1e-3)
    refused = [r for r in sweep if r["impl"] == "fattn:cuda_sm90"]
    assert refused and all(r["status"] == "n/a" and r["reason"] for r in refused)
    assert {r["head_dim"] for r in report["head_dim_sweep"]} == {16, 24}
    assert {r["impl"] for r in report["cpu"]} == {"fattn:cpu_flash", "sdpa:cpu"}
    assert "n/a" in Path(f"{prefix}.md").read_text()
    if plots:
        for suffix in ("sweep", "headdim", "cpu"):
            assert Path(f"{prefix}-{suffix}.png").stat().st_size > 0
