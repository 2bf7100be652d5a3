"""TPL104's default exemption for benchmarks, and how configuration replaces or extends it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SETS_THREADS = "import torch\ntorch.set_num_threads(1)\n"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for relative in ("pkg/kernel.py", "pkg/bench/run.py", "benchmarks/speed.py", "bench_warp.py", "scripts/go.py"):
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(SETS_THREADS)
    return tmp_path


def flagged(root: Path, config: str) -> list[str]:
    (root / "pyproject.toml").write_text("[tool.torchperf-lint]\n" + config)
    command = [sys.executable, "-m", "torchperf_lint", ".", "-q", "--no-cache", "--output-format", "concise"]
    result = subprocess.run(command, capture_output=True, text=True, cwd=root)
    return sorted(line.split(":")[0] for line in result.stdout.splitlines())


def test_benchmarks_are_exempt_by_default(tree):
    assert flagged(tree, "") == ["pkg/kernel.py", "scripts/go.py"]


def test_extend_per_file_ignores_keeps_the_default(tree):
    assert flagged(tree, 'extend-per-file-ignores = { "scripts/*" = ["TPL104"] }\n') == ["pkg/kernel.py"]


def test_per_file_ignores_replaces_the_default(tree):
    assert flagged(tree, 'per-file-ignores = { "scripts/*" = ["TPL104"] }\n') == [
        "bench_warp.py",
        "benchmarks/speed.py",
        "pkg/bench/run.py",
        "pkg/kernel.py",
    ]
