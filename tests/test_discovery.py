"""Paths to files: .gitignore as git reads it, missing paths, and runs that find no Python file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from torchperf_lint.config import Settings
from torchperf_lint.discovery import force_excluded

VIOLATION = "import torch\ny = x.cuda()\n"


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "torchperf_lint", "--no-cache", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd)


def linted(result: subprocess.CompletedProcess[str]) -> list[str]:
    return sorted(line.split(":")[0] for line in result.stdout.splitlines() if ": TPL" in line)


def make(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_gitignore_is_read_as_git_reads_it_with_nested_files_globstars_and_negation(tmp_path):
    (tmp_path / ".git").mkdir()
    make(
        tmp_path,
        {
            ".gitignore": "/scripts/*.py\n**/generated/\n*_tmp.py\ndocs/**\n",
            ".git/info/exclude": "local_only.py\n",
            "pkg/.gitignore": "!keep_tmp.py\n/legacy/**/old_*.py\n",
            "scripts/run.py": VIOLATION,  # ignored: /scripts/*.py
            "scripts/tools/helper.py": VIOLATION,  # kept: `*` in an anchored pattern stops at `/`
            "pkg/a/generated/out.py": VIOLATION,  # ignored: **/generated/ at any depth
            "pkg/scratch_tmp.py": VIOLATION,  # ignored
            "pkg/keep_tmp.py": VIOLATION,  # kept: re-included by the nested .gitignore
            "pkg/legacy/old_a.py": VIOLATION,  # ignored: ** matches zero folders
            "pkg/legacy/v1/v2/old_b.py": VIOLATION,  # ignored
            "pkg/legacy/v1/new.py": VIOLATION,  # kept
            "pkg/sub/legacy/old_c.py": VIOLATION,  # kept: the nested pattern is anchored to pkg/
            "docs/conf.py": VIOLATION,  # ignored: docs/**
            "local_only.py": VIOLATION,  # ignored: .git/info/exclude
        },
    )
    assert linted(cli(".", cwd=tmp_path)) == [
        "pkg/keep_tmp.py",
        "pkg/legacy/v1/new.py",
        "pkg/sub/legacy/old_c.py",
        "scripts/tools/helper.py",
    ]


def test_respect_gitignore_false_lints_ignored_files(tmp_path):
    (tmp_path / ".git").mkdir()
    make(
        tmp_path,
        {
            "pyproject.toml": "[tool.torchperf-lint]\nrespect-gitignore = false\n",
            ".gitignore": "ignored.py\n",
            "ignored.py": VIOLATION,
        },
    )
    assert linted(cli(".", cwd=tmp_path)) == ["ignored.py"]


def test_a_missing_path_is_an_error_and_the_run_never_claims_success(tmp_path):
    make(tmp_path, {"clean.py": "x = 1\n", "bad.py": VIOLATION})
    alone = cli("nope.py", "clean.py", cwd=tmp_path)
    assert alone.returncode == 2
    assert alone.stderr == "torchperf-lint: error: nope.py: no such file or directory\n"
    assert alone.stdout == ""
    with_findings = cli("nope.py", "bad.py", cwd=tmp_path)
    assert with_findings.returncode == 2
    assert with_findings.stdout.splitlines() == [
        "bad.py:2:5: TPL003 `.cuda()` moves work to a non-CPU device; routes are CPU-only by contract",
        "Found 1 error.",
        "1 hidden fix can be enabled with the `--unsafe-fixes` option.",
    ]


def test_no_python_files_warns_as_ruff_does(tmp_path):
    make(tmp_path, {"notes/readme.txt": "text\n"})
    result = cli("notes", cwd=tmp_path)
    assert result.returncode == 0
    assert result.stderr == "torchperf-lint: warning: No Python files found under the given path(s)\n"
    assert result.stdout == "All checks passed!\n"


def test_force_excluded_matches_the_file_its_folder_and_extend_exclude(tmp_path):
    settings = Settings(root=tmp_path, extend_exclude=("generated",))
    assert force_excluded(tmp_path / "generated" / "k.py", settings)
    assert force_excluded(tmp_path / "build", settings)
    assert not force_excluded(tmp_path / "src" / "generated_k.py", settings)
    assert not force_excluded(tmp_path / "k.py", settings)


def test_a_folder_named_inside_a_git_ignored_one_is_linted_as_ruff_does(tmp_path):
    (tmp_path / ".git").mkdir()
    make(
        tmp_path,
        {
            ".gitignore": "downloads/\n",
            "downloads/pkg/a.py": VIOLATION,
            "downloads/pkg/.gitignore": "generated.py\n",
            "downloads/pkg/generated.py": VIOLATION,  # its own .gitignore still applies
        },
    )
    assert linted(cli(".", cwd=tmp_path)) == []
    assert linted(cli("downloads/pkg", cwd=tmp_path)) == ["downloads/pkg/a.py"]


def test_the_respect_gitignore_flags_override_the_setting(tmp_path):
    (tmp_path / ".git").mkdir()
    make(tmp_path, {".gitignore": "ignored.py\n", "ignored.py": VIOLATION, "kept.py": VIOLATION})
    assert linted(cli(".", "--no-respect-gitignore", cwd=tmp_path)) == ["ignored.py", "kept.py"]
    (tmp_path / "pyproject.toml").write_text("[tool.torchperf-lint]\nrespect-gitignore = false\n")
    assert linted(cli(".", "--respect-gitignore", cwd=tmp_path)) == ["kept.py"]


def test_a_symlinked_folder_is_not_followed_while_walking_but_a_symlinked_file_is_linted(tmp_path):
    make(tmp_path, {"pkg/real/a.py": VIOLATION, "elsewhere/b.py": VIOLATION, "elsewhere/c.py": VIOLATION})
    (tmp_path / "pkg" / "outside").symlink_to(tmp_path / "elsewhere")
    (tmp_path / "pkg" / "loop").symlink_to(tmp_path / "pkg")
    (tmp_path / "pkg" / "c.py").symlink_to(tmp_path / "elsewhere" / "c.py")
    result = cli("pkg", cwd=tmp_path)
    assert (linted(result), result.stderr) == (["pkg/c.py", "pkg/real/a.py"], "")
    assert linted(cli("pkg/outside", cwd=tmp_path)) == ["pkg/outside/b.py", "pkg/outside/c.py"]
