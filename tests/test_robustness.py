"""Any input gets a clear diagnostic or a clear skip, the other files are still linted, and linted
code is never imported or executed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from helpers import jobs
from hypothesis import HealthCheck, given, settings
from hypothesmith import from_grammar

from torchperf_lint.config import Settings
from torchperf_lint.engine import lint_bytes
from torchperf_lint.registry import all_rules
from torchperf_lint.runner import Workers, lint_job, run
from torchperf_lint.workspace import FileSettings, Project

RULES = all_rules()
FILE = FileSettings(Path("f.py"), Project.of(Settings(root=Path.cwd()), frozenset(RULES)), "f", frozenset(RULES))
VIOLATION = "import torch\ny = x.cuda()\n"


def cli(*args, cwd):
    command = [sys.executable, "-m", "torchperf_lint", "--no-cache", "-q", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd)


def spots(data: bytes) -> list[tuple[str, int, int, str]]:
    return [(d.code, d.row, d.column, d.message) for d in lint_bytes(data, FILE)]


NUL = "File contains a NUL byte; it is not Python source"
UNDECODABLE = "File could not be decoded: invalid or missing encoding declaration"
ODD_FILES = {
    "empty": (b"", []),
    "binary": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", [("TPL900", 1, 1, "File could not be decoded: invalid")]),
    "nul": (b"import torch\nx = 1\x00\n", [("TPL900", 1, 1, NUL)]),
    "not-utf8": (b"\xff\xfe\xfa", [("TPL900", 1, 1, UNDECODABLE)]),
    "latin1-cookie": (
        b"# -*- coding: latin-1 -*-\nimport torch\ns = '\xe9\xe9'; y = x.cuda()\n",
        [("TPL003", 3, 15, None)],
    ),
    "bom": (b"\xef\xbb\xbfimport torch\ny = x.cuda()\n", [("TPL003", 2, 5, None)]),
    "crlf": (b"import torch\r\ny = 1\r\ny = x.cuda()\r\n", [("TPL003", 3, 5, None)]),
    "unknown-codec": (
        b"# coding: klingon\nx = 1\n",
        [("TPL900", 1, 1, "File could not be decoded: unknown encoding")],
    ),
}


@pytest.mark.parametrize(("data", "expected"), list(ODD_FILES.values()), ids=list(ODD_FILES))
def test_odd_files_get_a_clear_result(data, expected):
    got = spots(data)
    assert [(c, r, col) for c, r, col, _ in got] == [(c, r, col) for c, r, col, _ in expected]
    for (_, _, _, message), (_, _, _, wanted) in zip(got, expected, strict=True):
        if wanted is not None:
            assert message.startswith(wanted)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("x = " + "(" * 3000 + "1" + ")" * 3000, "SyntaxError: too many nested parentheses"),
        ("x = " + "+".join(["1"] * 30000), "File is nested too deeply to parse"),
    ],
    ids=["brackets", "operator-chain"],
)
def test_deep_nesting_is_a_diagnostic_not_a_crash(body, message):
    """LibCST's native parser crashes the process on such input; CPython's parser refuses it first."""
    (finding,) = spots(f"import torch\n{body}\n".encode())
    assert finding[0] == "TPL900" and finding[3] == message


def test_a_file_over_the_size_limit_is_reported_and_not_parsed(tmp_path):
    body = "".join(f"value_{i} = {i} * 2  # padding to make the file large\n" for i in range(180_000))
    target = tmp_path / "big.py"
    target.write_text(body + "y = x.cuda()\n")
    assert target.stat().st_size > 10_000_000
    (job,) = jobs(tmp_path, ["big.py"])
    (finding,) = lint_job(job)
    assert (finding.code, finding.row, finding.column, finding.message) == (
        "TPL900",
        1,
        1,
        "File not linted: it is 10.1 MiB, over the limit of 512 KiB (`max-file-size`); "
        "raise the limit or exclude the file",
    )
    settings = job.settings.settings.with_overrides(max_file_size=16 << 20)
    raised = replace(job, settings=replace(job.settings, project=replace(job.settings.project, settings=settings)))
    assert lint_job(raised) == []  # no torch: CPython checks it, no rule runs


def test_the_size_limit_comes_from_the_configuration(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.torchperf-lint]\nmax-file-size = 20\n")
    (tmp_path / "a.py").write_text(VIOLATION)
    result = cli("a.py", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (
        1,
        "a.py:1:1: TPL900 File not linted: it is 26 bytes, over the limit of 20 bytes (`max-file-size`); "
        "raise the limit or exclude the file\n",
    )
    assert cli("a.py", "--config", "max-file-size = 26", cwd=tmp_path).stdout.split(" ")[1] == "TPL003"


def test_an_unreadable_file_is_reported_and_the_rest_are_linted(tmp_path, monkeypatch):
    (tmp_path / "a.py").write_text(VIOLATION)
    (tmp_path / "b.py").write_text(VIOLATION)
    real = Path.read_bytes

    def read_bytes(self):
        if self.name == "a.py":
            raise PermissionError(13, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    found = [(f.path, f.code, f.message) for f in run(jobs(tmp_path, ["a.py", "b.py"]))]
    assert found[0] == ("a.py", "TPL900", "File could not be read: Permission denied")
    assert [(p, c) for p, c, _ in found[1:]] == [("b.py", "TPL003")]


def test_a_rule_that_raises_costs_one_file_and_the_rest_are_linted(tmp_path, monkeypatch):
    (tmp_path / "a.py").write_text("import torch\nz = x.cuda()\n")
    (tmp_path / "b.py").write_text(VIOLATION)
    device_route = RULES["TPL003"]
    real = device_route.visit_Call

    def visit_call(self, node):
        if self.ctx.path == "a.py":
            raise KeyError("boom")
        return real(self, node)

    monkeypatch.setattr(device_route, "visit_Call", visit_call)
    found = [(f.path, f.row, f.code, f.message) for f in run(jobs(tmp_path, ["a.py", "b.py"]))]
    assert found == [
        ("a.py", 1, "TPL900", "Internal error while linting this file (KeyError: 'boom'); please report it"),
        ("b.py", 2, "TPL003", "`.cuda()` moves work to a non-CPU device; routes are CPU-only by contract"),
    ]


def test_symlinked_folders_and_directories_named_like_files_are_handled(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text(VIOLATION)
    (tmp_path / "pkg" / "loop").symlink_to(tmp_path / "pkg")
    (tmp_path / "odd.py").mkdir()
    (tmp_path / "odd.py" / "inner.py").write_text(VIOLATION)
    result = cli(".", cwd=tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert sorted(line.split(":")[0] for line in result.stdout.splitlines()) == ["odd.py/inner.py", "pkg/a.py"]


def test_linted_code_is_never_imported_or_executed(tmp_path):
    marker = tmp_path / "executed"
    (tmp_path / "trap.py").write_text(
        f"import torch\nopen({str(marker)!r}, 'w').write('ran')\nimport os\nos.system('touch {marker}')\n"
    )
    (tmp_path / "conftest.py").write_text(f"open({str(marker)!r}, 'w')\n")
    result = cli(".", "--fix", "--unsafe-fixes", cwd=tmp_path)
    assert result.returncode == 0 and not marker.exists()


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
@given(source=from_grammar())
def test_generated_programs_never_crash_and_findings_are_stable(source):
    data = ("import torch\n" + source).encode()
    first = lint_bytes(data, FILE)
    assert lint_bytes(data, FILE) == first
    assert all(finding.row >= 1 and finding.column >= 1 for finding in first)


def test_cold_warm_serial_and_parallel_runs_agree(tmp_path):
    for index in range(48):
        body = VIOLATION if index % 3 else "import torch\n@torch.compile\ndef f(x):\n    return x.to('mps')\n"
        (tmp_path / f"m{index:02}.py").write_text(body)
    batch = jobs(tmp_path, sorted(p.name for p in tmp_path.glob("*.py")), cache_dir=tmp_path / ".cache")
    serial = run(batch)
    with Workers(2) as pool:
        parallel = run(batch, pool)
        cold = run(batch, pool, use_cache=True)
        warm = run(batch, pool, use_cache=True)
    assert len(serial) == 64  # 16 files with two findings, 32 with one
    assert serial == parallel == cold == warm
    assert [f.fix for f in serial] == [f.fix for f in warm]


def test_killing_a_fix_run_never_leaves_a_truncated_file(tmp_path):
    original = "import torch\n\n\n@torch.compile\ndef f(x):\n    return x\n" + "# padding line\n" * 2000
    fixed = original.replace("@torch.compile\n", "")
    for index in range(300):
        (tmp_path / f"m{index:03}.py").write_text(original)
    command = [sys.executable, "-m", "torchperf_lint", "--no-cache", "--fix", "--jobs", "1", "."]
    process = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(2.0)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    contents = {p.read_text() for p in tmp_path.glob("*.py")}
    assert contents <= {original, fixed}
