"""Test files are exempt by default from the rules tests break on purpose; the contract still applies."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SOURCE = "import torch\ndef check(x):\n    x.sum().backward()\n    return x.cuda()\n"
FILES = ("pkg/kernel.py", "tests/test_warp.py", "pkg/tests/helpers.py", "pkg/warp_test.py", "conftest.py")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for relative in FILES:
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(SOURCE)
    return tmp_path


def findings(root: Path, config: str = "") -> list[tuple[str, str]]:
    (root / "pyproject.toml").write_text("[tool.torchperf-lint]\n" + config)
    command = [sys.executable, "-m", "torchperf_lint", ".", "-q", "--no-cache", "--output-format", "concise"]
    result = subprocess.run(command, capture_output=True, text=True, cwd=root)
    assert result.returncode == 1, result.stderr
    return sorted((line.split(":")[0], line.split()[1]) for line in result.stdout.splitlines())


def test_tests_may_call_backward_but_not_route_to_a_device(tree):
    assert findings(tree) == [
        ("conftest.py", "TPL003"),
        ("pkg/kernel.py", "TPL001"),
        ("pkg/kernel.py", "TPL003"),
        ("pkg/tests/helpers.py", "TPL003"),
        ("pkg/warp_test.py", "TPL003"),
        ("tests/test_warp.py", "TPL003"),
    ]


def test_per_file_ignores_replaces_the_test_default(tree):
    found = findings(tree, 'per-file-ignores = { "conftest.py" = ["TPL001"] }\n')
    assert ("tests/test_warp.py", "TPL001") in found and ("conftest.py", "TPL001") not in found
