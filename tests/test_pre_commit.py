"""The published hook manifest is valid, and the hook blocks a commit until the finding is fixed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PRE_COMMIT = shutil.which("pre-commit")
CONSOLE_SCRIPT = shutil.which("torchperf-lint")

pytestmark = pytest.mark.skipif(
    PRE_COMMIT is None or CONSOLE_SCRIPT is None, reason="needs pre-commit and the script"
)

README = ROOT / "README.md"


def readme_local_hook() -> str:
    """The README's complete ``repo: local`` block, which a user copies as it is."""
    blocks = [part.split("```", 1)[0] for part in README.read_text().split("```yaml\n")[1:]]
    (block,) = [block for block in blocks if "repo: local" in block]
    return block


def test_the_manifest_validates():
    result = subprocess.run(
        [PRE_COMMIT, "validate-manifest", str(ROOT / ".pre-commit-hooks.yaml")], capture_output=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_hook_environment_installs_without_torch():
    text = (ROOT / ".pre-commit-hooks.yaml").read_text()
    assert "language: python" in text and "additional_dependencies" not in text
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert [re.split(r"[<>=!~ ]", d)[0] for d in project["dependencies"]] == ["libcst", "Jinja2", "pathspec"]


def test_the_hook_fails_on_a_finding_and_passes_after_the_fix(tmp_path):
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "cache"),
        "GIT_CONFIG_GLOBAL": str(tmp_path / "gitconfig"),
    }
    repo = tmp_path / "repo"
    repo.mkdir()

    def sh(*command):
        return subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True)

    sh("git", "init", "-q")
    config = readme_local_hook().replace("entry: torchperf-lint ", f"entry: {CONSOLE_SCRIPT} ")
    (repo / ".pre-commit-config.yaml").write_text(config)
    (repo / "kernel.py").write_text("import torch\n\n\n@torch.compile\ndef warp(v):\n    return v\n")
    (repo / "notes.txt").write_text("not python\n")
    sh("git", "add", ".")
    failed = sh(PRE_COMMIT, "run", "--all-files")
    assert failed.returncode == 1
    assert "kernel.py:4:2: TPL002" in failed.stdout
    assert sh(sys.executable, "-m", "torchperf_lint", "kernel.py", "--fix", "--no-cache").returncode == 0
    sh("git", "add", ".")
    passed = sh(PRE_COMMIT, "run", "--all-files")
    assert passed.returncode == 0, passed.stdout


def test_the_local_hook_runs_the_torchperf_lint_on_path_and_says_when_there_is_none(tmp_path):
    """`language: system` builds no environment: the script comes from PATH, as the README says."""
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {"PRE_COMMIT_HOME": str(tmp_path / "cache"), "GIT_CONFIG_GLOBAL": str(tmp_path / "gitconfig")}
    git = Path(shutil.which("git") or "git").parent
    without = {**os.environ, **env, "PATH": str(git)}
    with_script = {**without, "PATH": f"{Path(CONSOLE_SCRIPT).parent}{os.pathsep}{git}"}

    def sh(*command, environ):
        return subprocess.run(command, cwd=repo, env=environ, capture_output=True, text=True)

    sh("git", "init", "-q", environ=without)
    (repo / ".pre-commit-config.yaml").write_text(readme_local_hook())
    (repo / "kernel.py").write_text("import torch\ny = x.cuda()\n")
    sh("git", "add", ".", environ=without)
    missing = sh(PRE_COMMIT, "run", "--all-files", environ=without)
    assert missing.returncode == 1 and "Executable `torchperf-lint` not found" in missing.stdout
    found = sh(PRE_COMMIT, "run", "--all-files", environ=with_script)
    assert found.returncode == 1 and "kernel.py:2:5: TPL003" in found.stdout
