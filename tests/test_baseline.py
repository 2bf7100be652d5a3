"""``check --baseline REV`` on a git fixture: only findings the revision did not have are reported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BASE = """import torch


def route(volume):  # torchperf: prevalidated
    return volume.cuda()


def other(volume):
    return volume.to("cuda")
"""
CHANGED = """import torch

# Two new lines above move every finding down.


def route(volume):  # torchperf: prevalidated
    return volume.cuda()


def other(volume):
    return volume.to("cuda:1")


def added(volume):
    return volume.cuda()
"""


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True)
    return done.stdout


def commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "-c", "user.email=t@example.org", "-c", "user.name=t", "commit", "-q", "-m", message)


def lint(repo: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "torchperf_lint", "check", "--no-cache", "-q", "--select", "TPL003", *args]
    return subprocess.run(command, cwd=repo, capture_output=True, text=True, input=stdin)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    git(root, "init", "-q")
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "kernel.py").write_text(BASE)
    commit(root, "base")
    (root / "pkg" / "kernel.py").write_text(CHANGED)
    return root


def test_without_a_baseline_every_finding_is_reported(repo):
    result = lint(repo, "pkg")
    assert [line.split(" ")[0] for line in result.stdout.splitlines()] == [
        "pkg/kernel.py:7:12:",
        "pkg/kernel.py:11:22:",
        "pkg/kernel.py:15:12:",
    ]


def test_a_moved_finding_is_existing_and_a_changed_or_copied_one_is_new(repo):
    result = lint(repo, "pkg", "--baseline", "HEAD")
    assert result.returncode == 1, result.stderr
    # line 7 is the base's line 5, moved but unchanged; line 11 changed; line 15 copies line 7's text,
    # which the base had only once.
    assert [line.split(" ")[0] for line in result.stdout.splitlines()] == [
        "pkg/kernel.py:11:22:",
        "pkg/kernel.py:15:12:",
    ]
    assert git(repo, "status", "--porcelain") == " M pkg/kernel.py\n"  # nothing checked out or written


def test_the_summary_says_how_many_findings_the_baseline_hid(repo):
    command = [sys.executable, "-m", "torchperf_lint", "check", "--no-cache", "--select", "TPL003", "pkg"]
    result = subprocess.run([*command, "--baseline", "HEAD"], cwd=repo, capture_output=True, text=True)
    assert result.stdout.splitlines()[-3:] == [
        "Found 2 errors.",
        "1 hidden fix can be enabled with the `--unsafe-fixes` option.",
        "1 finding that HEAD already had is not shown (--baseline).",
    ]
    (repo / "pkg" / "kernel.py").write_text("# moved\n" + BASE)
    clean = subprocess.run([*command, "--baseline", "HEAD"], cwd=repo, capture_output=True, text=True)
    assert clean.stdout == "All checks passed!\n2 findings that HEAD already had are not shown (--baseline).\n"


def test_a_baseline_with_only_old_findings_is_clean(repo):
    (repo / "pkg" / "kernel.py").write_text("# moved\n" + BASE)
    result = lint(repo, "pkg", "--baseline", "HEAD")
    assert (result.returncode, result.stdout) == (0, "")


def test_a_form_feed_does_not_shift_the_lines_findings_are_matched_by(repo):
    # A form feed on a blank line ends a line for str.splitlines, not for Python or the linter.
    (repo / "pkg" / "kernel.py").write_text(BASE.replace("import torch\n\n", "import torch\n\x0c\n"))
    result = lint(repo, "pkg", "--baseline", "HEAD")
    assert (result.returncode, result.stdout) == (0, "")


def test_a_file_that_is_new_since_the_baseline_reports_everything(repo):
    (repo / "pkg" / "fresh.py").write_text(BASE)
    result = lint(repo, "pkg/fresh.py", "--baseline", "HEAD")
    assert [line.split(" ")[0] for line in result.stdout.splitlines()] == [
        "pkg/fresh.py:5:12:",
        "pkg/fresh.py:9:22:",
    ]


def test_the_base_version_is_linted_under_the_file_name_so_its_config_applies(repo):
    # The base version has a TPL005 finding only because `prevalidated` in the config names the
    # function; linted under another name it would be new.
    (repo / "pyproject.toml").write_text('[tool.torchperf-lint]\nprevalidated = ["pkg.kernel.check"]\n')
    (repo / "pkg" / "kernel.py").write_text("import torch\n\n\ndef check(x):\n    assert x.ndim == 5\n")
    commit(repo, "prevalidated")
    (repo / "pkg" / "kernel.py").write_text("import torch\n\n\ndef check(x):\n    x = x\n    assert x.ndim == 5\n")
    everything = lint(repo, "pkg", "--select", "TPL005")
    assert [line.split(" ")[0:2] for line in everything.stdout.splitlines()] == [["pkg/kernel.py:6:5:", "TPL005"]]
    assert lint(repo, "pkg", "--select", "TPL005", "--baseline", "HEAD").stdout == ""


def test_stdin_is_compared_with_the_base_version_of_its_file_name(repo):
    result = lint(repo, "-", "--stdin-filename", "pkg/kernel.py", "--baseline", "HEAD", stdin=CHANGED)
    assert [line.split(" ")[0] for line in result.stdout.splitlines()] == [
        "pkg/kernel.py:11:22:",
        "pkg/kernel.py:15:12:",
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["pkg", "--baseline", "nope"], "--baseline nope: not a commit in the repository at"),
        (
            ["pkg", "--baseline", "HEAD", "--fix"],
            "--baseline filters the report; it cannot be combined with --fix",
        ),
        (["-", "--baseline", "HEAD"], "--baseline with stdin needs --stdin-filename"),
    ],
)
def test_bad_baselines_are_usage_errors(repo, args, message):
    result = lint(repo, *args, stdin="")
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr


def test_outside_a_git_repository_the_baseline_is_a_usage_error(tmp_path):
    (tmp_path / "a.py").write_text(BASE)
    result = lint(tmp_path, "a.py", "--baseline", "HEAD")
    assert result.returncode == 2 and "is not inside a git repository" in result.stderr
