"""``--fix``, ``--diff``, ``--unsafe-fixes`` and stdin from the console script, on real files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from torchperf_lint.autofix import write_atomically

FIXABLE = "import torch\n\n\n@torch.compile\ndef f(x):\n    return x\n\n\ng = torch.jit.script(f)\n"
MIXED = "import torch\n\n\n@torch.compile\ndef f(x):\n    return x.cuda()\n"


def run(*args, cwd, stdin=None):
    command = [sys.executable, "-m", "torchperf_lint", "--no-cache", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, input=stdin)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.torchperf-lint]\nper-file-ignores = { "gen/*" = ["TPL003"] }\n'
    )
    (tmp_path / "fixable.py").write_text(FIXABLE)
    (tmp_path / "mixed.py").write_bytes(MIXED.replace("\n", "\r\n").encode())  # CRLF must survive a fix
    return tmp_path


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in root.glob("*.py")}


def test_diff_prints_a_unified_diff_and_writes_nothing(tree):
    before = snapshot(tree)
    result = run(".", "--diff", cwd=tree)
    assert result.returncode == 1
    assert "--- a/fixable.py\n+++ b/fixable.py\n" in result.stdout
    assert "-@torch.compile\n" in result.stdout and "+g = f\n" in result.stdout
    assert result.stderr.strip() == "Would fix 3 errors."
    assert snapshot(tree) == before


def test_fix_leaves_only_unfixable_findings_and_a_second_fix_changes_nothing(tree):
    result = run(".", "--fix", cwd=tree)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "mixed.py:5:12: TPL003 `.cuda()` moves work to a non-CPU device; routes are CPU-only by contract",
        "Found 4 errors (3 fixed, 1 remaining).",
    ]
    assert (tree / "fixable.py").read_text() == "import torch\n\n\ndef f(x):\n    return x\n\n\ng = f\n"
    assert (tree / "mixed.py").read_bytes() == b"import torch\r\n\r\n\r\ndef f(x):\r\n    return x.cuda()\r\n"
    after = snapshot(tree)
    again = run(".", "--fix", cwd=tree)
    assert snapshot(tree) == after
    assert again.returncode == 1 and "Found 1 error." in again.stdout


def test_exit_codes_follow_ruff_once_everything_is_fixed(tree):
    (tree / "mixed.py").unlink()
    assert run(".", "--fix", cwd=tree).returncode == 0
    (tree / "fixable.py").write_text(FIXABLE)
    assert run(".", "--fix", "--exit-non-zero-on-fix", cwd=tree).returncode == 1
    assert run(".", "--fix", "--exit-non-zero-on-fix", cwd=tree).returncode == 0


def test_unsafe_fixes_apply_only_when_asked(tree):
    result = run("mixed.py", "--fix", "--unsafe-fixes", "--show-fixes", cwd=tree)
    assert result.returncode == 0
    assert (
        "Fixed 2 errors:\n- mixed.py:\n    1 × TPL002 (compilation)\n    1 × TPL003 (device-route)\n"
        in result.stdout
    )
    assert b"return x\r\n" in (tree / "mixed.py").read_bytes()


def test_stdin_uses_the_given_name_for_config_and_prints_fixed_source(tree):
    lint = run("-", "--stdin-filename", "gen/mixed.py", cwd=tree, stdin=MIXED)
    assert lint.stdout.splitlines()[0].startswith("gen/mixed.py:4:2: TPL002")
    assert "TPL003" not in lint.stdout  # ignored for gen/* by the config
    fixed = run("-", "--stdin-filename", "gen/mixed.py", "--fix", cwd=tree, stdin=MIXED)
    assert fixed.stdout == "import torch\n\n\ndef f(x):\n    return x.cuda()\n"
    assert fixed.returncode == 0 and fixed.stderr == "Found 1 error (1 fixed, 0 remaining).\n"


def test_stdin_with_nothing_to_fix_comes_back_unchanged(tree):
    source = "import torch\ny = x.cuda()\n"
    result = run("-", "--stdin-filename", "a.py", "--fix", cwd=tree, stdin=source)
    assert result.stdout == source
    assert result.returncode == 1 and result.stderr.startswith("a.py:2:5: TPL003")


def test_a_failed_write_leaves_the_original_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "a.py"
    target.write_text("original\n")
    os.chmod(target, 0o640)

    def fail(*args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError):
        write_atomically(target, b"new\n")
    assert target.read_text() == "original\n" and [p.name for p in tmp_path.iterdir()] == ["a.py"]
    monkeypatch.undo()
    write_atomically(target, b"new\n")
    assert target.read_text() == "new\n" and (target.stat().st_mode & 0o777) == 0o640


def test_conflicting_modes_are_usage_errors(tree):
    result = run(".", "--fix", "--diff", cwd=tree)
    assert result.returncode == 2 and "use one of --fix and --diff" in result.stderr


FORM_FEED_INDENT = "import torch\n\x0cy = s.cuda()\ndef f(x):\n    z = 1\n  \x0c    return x.cuda()\n"


def test_a_form_feed_in_the_indentation_counts_as_a_column(tmp_path):
    (tmp_path / "ff.py").write_bytes(FORM_FEED_INDENT.encode())
    result = run("ff.py", cwd=tmp_path)
    assert result.stdout.splitlines()[:2] == [
        "ff.py:2:6: TPL003 `.cuda()` moves work to a non-CPU device; routes are CPU-only by contract",
        "ff.py:5:15: TPL003 `.cuda()` moves work to a non-CPU device; routes are CPU-only by contract",
    ]
    piped = run("-", "--stdin-filename", "ff.py", cwd=tmp_path, stdin=FORM_FEED_INDENT)
    assert piped.stdout.splitlines()[:2] == result.stdout.splitlines()[:2]


def test_fix_after_a_form_feed_in_the_indentation_edits_the_call_and_keeps_the_form_feed(tmp_path):
    (tmp_path / "ff.py").write_bytes(FORM_FEED_INDENT.encode())
    result = run("ff.py", "--fix", "--unsafe-fixes", cwd=tmp_path)
    fixed = "import torch\n\x0cy = s\ndef f(x):\n    z = 1\n  \x0c    return x\n"
    assert (tmp_path / "ff.py").read_bytes().decode() == fixed
    assert result.returncode == 0 and result.stdout.strip() == "Found 2 errors (2 fixed, 0 remaining)."
    piped = run("-", "--stdin-filename", "ff.py", "--fix", "--unsafe-fixes", cwd=tmp_path, stdin=FORM_FEED_INDENT)
    assert piped.stdout == fixed


def test_a_vertical_tab_is_a_syntax_error_at_its_column_and_fix_leaves_the_file_alone(tmp_path):
    source = "import torch\ny = \x0bs.cuda()\n"
    (tmp_path / "vt.py").write_bytes(source.encode())
    result = run("vt.py", "--fix", "--unsafe-fixes", cwd=tmp_path)
    assert result.stdout.splitlines()[0] == "vt.py:2:5: TPL900 SyntaxError: invalid non-printable character U+000B"
    assert (tmp_path / "vt.py").read_bytes().decode() == source
