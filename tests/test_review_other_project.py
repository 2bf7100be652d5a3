"""The reviewers' skill on a project that is not this one: a small kernel package (voxkit) with its own
contract, a docstring-prevalidated router and a size threshold between two routes, and a change with
planted defects of each kind the skill must surface. The script and the documented steps are run as a
reviewer would run them, from inside that repository, with nothing from this one on the way."""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SKILL = ROOT / "skill" / "torchperf-review"
SCRIPT = SKILL / "scripts" / "review_changes.py"
BIN = Path(sys.executable).parent

PYPROJECT = """[project]
name = "voxkit"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["torch"]

[tool.setuptools.packages.find]
where = ["src"]
"""
#: The project's own contract, which differs from the skill's defaults on inference mode and rounding.
AGENTS = """# Working on voxkit

## Torch routes
- Public Tensor functions return tensors a caller can train with: heavy work runs under
  `torch.no_grad()`. `torch.inference_mode()` is fine for intermediates that never leave a function.
- uint8 results are rounded with `rint` (half to even) and saturated once.
- Every routing threshold names the benchmark note in `docs/benchmarks/` that chose it.

## Checks
    python -m pytest -q tests
    python benchmarks/bench_resize.py
"""
RESIZE = '''"""Resizing CDHW volumes."""

import torch
import torch.nn.functional as F

#: Up to this many output voxels one trilinear call wins; see docs/benchmarks/resize.md.
SMALL_RESIZE_MAX_VOXELS = 4096


def resize3d(volume: torch.Tensor, size: tuple[int, int, int]) -> torch.Tensor:
    """Resize a float32 CDHW tensor to ``size`` (depth, height, width)."""
    if not isinstance(volume, torch.Tensor) or volume.dtype != torch.float32:
        raise TypeError("volume must be a float32 torch.Tensor")
    if volume.ndim != 4:
        raise ValueError("volume must be CDHW")
    return _resize_router(volume, size)


def _resize_router(volume: torch.Tensor, size: tuple[int, int, int]) -> torch.Tensor:
    """Choose a route for one volume. Callers validate the container, layout and dtype."""
    if size[0] * size[1] * size[2] <= SMALL_RESIZE_MAX_VOXELS:
        return _resize_small(volume, size)
    return _resize_large(volume, size)


def _resize_small(volume: torch.Tensor, size: tuple[int, int, int]) -> torch.Tensor:
    with torch.no_grad():
        return F.interpolate(volume[None], size=size, mode="trilinear", align_corners=False)[0]


def _resize_large(volume: torch.Tensor, size: tuple[int, int, int]) -> torch.Tensor:
    with torch.no_grad():
        planes = F.interpolate(volume, size=size[1:], mode="bilinear", align_corners=False)
        channels, depth, height, width = planes.shape
        columns = planes.reshape(channels, depth, height * width).transpose(1, 2)
        deep = F.interpolate(columns, size=size[0], mode="linear", align_corners=False)
        return deep.transpose(1, 2).reshape(channels, size[0], height, width)
'''
NOTE = "# Resize routes\n\nOne trilinear call is ahead of the separable route up to 4096 output voxels.\n"
TESTS = """import torch
from voxkit.resize import resize3d


def test_resize_shape():
    assert resize3d(torch.rand(1, 4, 4, 4), (8, 8, 8)).shape == (1, 8, 8, 8)


def test_resize_output_can_train():
    out = resize3d(torch.rand(1, 4, 4, 4), (8, 8, 8))
    torch.nn.Conv3d(1, 1, 1)(out[None]).sum().backward()
"""
BENCH = """import time

import torch
from voxkit.resize import resize3d

SIZES = [(8, 8, 8), (20, 20, 20)]


def main():
    volume = torch.rand(1, 16, 16, 16)
    start = time.perf_counter()
    resize3d(volume, (64, 64, 64))
    print(time.perf_counter() - start)
"""
BASE_FILES = {
    "pyproject.toml": PYPROJECT,
    "AGENTS.md": AGENTS,
    "src/voxkit/__init__.py": '"""voxkit: small volume operations."""\n',
    "src/voxkit/resize.py": RESIZE,
    "docs/benchmarks/resize.md": NOTE,
    "tests/test_resize.py": TESTS,
    "benchmarks/bench_resize.py": BENCH,
}
#: The planted change: each edit is (path, old text, new text).
REVALIDATION = (
    '    """Choose a route for one volume. Callers validate the container, layout and dtype."""\n',
    '    """Choose a route for one volume. Callers validate the container, layout and dtype."""\n'
    "    if volume.ndim != 4:\n"
    '        raise ValueError("volume must be CDHW")\n',
)
INFERENCE_ROUTE = (  # the small route, below the threshold, now returns inference tensors
    "    with torch.no_grad():\n        return F.interpolate(volume[None]",
    "    with torch.inference_mode():\n        return F.interpolate(volume[None]",
)
BENCH_VALIDATION = (  # untimed validation in a benchmark: a finding, but not kernel code
    "    start = time.perf_counter()\n",
    "    for size in SIZES:\n        assert bool(torch.isfinite(resize3d(volume, size)).all()), size\n"
    "    start = time.perf_counter()\n",
)
EDITS = {
    "src/voxkit/resize.py": [REVALIDATION, INFERENCE_ROUTE],
    "benchmarks/bench_resize.py": [BENCH_VALIDATION],
    "tests/test_resize.py": [(TESTS[TESTS.index("\n\ndef test_resize_output_can_train") :], "\n")],
}
DELETED = "docs/benchmarks/resize.md"
#: One step either side of SMALL_RESIZE_MAX_VOXELS (16 * 16 * 16 = 4096).
AT_THRESHOLD, PAST_THRESHOLD = "(16,16,16)", "(16,16,17)"


class Repo:
    """A git repository in a temporary folder, with a quiet committer."""

    def __init__(self, path: Path):
        self.path = path

    def git(self, *args: str) -> str:
        identity = ["-c", "user.email=r@example.org", "-c", "user.name=r"]
        done = subprocess.run(["git", *identity, *args], cwd=self.path, check=True, capture_output=True, text=True)
        return done.stdout

    def text(self, name: str) -> str:
        return (self.path / name).read_text()

    def line_of(self, name: str, needle: str) -> int:
        return next(n for n, line in enumerate(self.text(name).splitlines(), start=1) if needle in line)


@pytest.fixture
def voxkit(tmp_path) -> Repo:
    """voxkit on main, and the planted change committed on branch `change` (checked out)."""
    repo = Repo(tmp_path / "voxkit")
    repo.path.mkdir()
    repo.git("init", "-q", "-b", "main")
    for name, text in BASE_FILES.items():
        (repo.path / name).parent.mkdir(parents=True, exist_ok=True)
        (repo.path / name).write_text(text)
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "voxkit with two resize routes")
    repo.git("checkout", "-q", "-b", "change")
    for name, edits in EDITS.items():
        text = repo.text(name)
        for old, new in edits:
            assert old in text, old
            text = text.replace(old, new)
        (repo.path / name).write_text(text)
    repo.git("rm", "-q", DELETED)
    repo.git("commit", "-q", "-am", "Faster small resizes")
    return repo


def environment(**extra: str) -> dict[str, str]:
    """This environment with the test's Python and console scripts first on PATH, as an activated
    virtual environment has them."""
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", **extra}


def review(cwd: Path, *args: str, python: str = sys.executable, env: dict | None = None):
    command = [python, str(SCRIPT), *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env or environment())


# --- the script on the planted change ---------------------------------------------------------------------


def test_the_script_surfaces_every_planted_change_from_inside_the_project(voxkit):
    result = review(voxkit.path / "src" / "voxkit", "--base", "main")
    assert result.returncode == 1, result.stdout + result.stderr
    summary = json.loads(result.stdout)
    resize, bench = "src/voxkit/resize.py", "benchmarks/bench_resize.py"
    assert (summary["mode"], summary["base"], summary["warnings"]) == ("committed", "main", [])
    assert [(f["file"], f["line"], f["rule"], f["kind"], f["status"]) for f in summary["shown"]] == [
        (resize, voxkit.line_of(resize, "Callers validate the container") + 2, "TPL005", "kernel", "new"),
        (resize, voxkit.line_of(resize, "with torch.inference_mode()"), "TPL008", "kernel", "new"),
        (bench, voxkit.line_of(bench, "assert bool("), "TPL103", "benchmark", "new"),
    ]
    assert summary["kinds"]["kernel"] == {"new": 2, "existing": 0}
    assert summary["kinds"]["benchmark"] == {"new": 1, "existing": 0}
    assert summary["changed"] == {"kernel": 1, "benchmark": 2, "test": 1, "other": 0}
    threshold = voxkit.line_of(resize, "see docs/benchmarks/resize.md")
    assert summary["deleted"] == [
        {
            "file": DELETED,
            "kind": "benchmark",
            "cited_by": [f"{resize}:{threshold}: {voxkit.text(resize).splitlines()[threshold - 1].strip()}"],
            "citations": 1,
        }
    ]
    assert summary["removed_tests"] == [{"file": "tests/test_resize.py", "test": "test_resize_output_can_train"}]
    inference = voxkit.line_of(resize, "with torch.inference_mode()")
    assert summary["inference_mode_added"] == [
        {"file": resize, "line": inference, "kind": "kernel", "text": "with torch.inference_mode():"}
    ]
    assert (summary["truncated"], summary["omitted"]) == (False, {})


def test_config_reaches_the_linter_and_a_config_file_is_found_from_where_the_script_started(voxkit, tmp_path):
    router = 'not-prevalidated = ["voxkit.resize._resize_router"]'
    corrected = review(voxkit.path, "--base", "main", "--config", router)
    assert corrected.returncode == 1, corrected.stdout + corrected.stderr
    assert "TPL005" not in json.loads(corrected.stdout)["counts"]  # the router no longer trusts its callers
    (tmp_path / "review.toml").write_text('ignore = ["TPL008", "TPL103"]\n')
    from_elsewhere = review(tmp_path, "--repo", str(voxkit.path), "--base", "main", "--config", "review.toml")
    assert from_elsewhere.returncode == 1, from_elsewhere.stdout + from_elsewhere.stderr
    assert list(json.loads(from_elsewhere.stdout)["counts"]) == ["TPL005"]
    bad = review(voxkit.path, "--base", "main", "--config", "select = 3")
    assert bad.returncode == 2
    assert json.loads(bad.stdout)["error"].startswith("torchperf-lint failed (exit 2): ")
    assert "`select` must be a list of strings" in bad.stderr


# --- exit codes and messages ---------------------------------------------------------------------------


def test_a_merge_base_equal_to_head_is_an_error_never_a_clean_result(voxkit):
    voxkit.git("checkout", "-q", "main")  # main is behind the change: HEAD is the merge base
    behind = review(voxkit.path, "--base", "change")
    assert behind.returncode == 2, behind.stdout
    error = json.loads(behind.stdout)["error"]
    assert error.startswith("nothing to review: the merge base of change and HEAD is HEAD itself")
    assert error in behind.stderr
    guessed = review(voxkit.path)  # no --base: main is guessed, and main is HEAD
    assert guessed.returncode == 2 and "nothing to review" in json.loads(guessed.stdout)["error"]
    assert "warning: no --base given: comparing with main" in guessed.stderr


def test_no_base_is_a_loud_warning_and_an_empty_work_tree_an_error(voxkit):
    guessed = review(voxkit.path)
    assert guessed.returncode == 1
    warnings = json.loads(guessed.stdout)["warnings"]
    assert warnings == ["no --base given: comparing with main; pass --base, the branch the change merges into"]
    assert f"review_changes.py: warning: {warnings[0]}" in guessed.stderr
    nothing = review(voxkit.path, "--base", "HEAD", "--worktree")
    assert nothing.returncode == 2 and "nothing to review: no file changed" in json.loads(nothing.stdout)["error"]
    (voxkit.path / "README.md").write_text("voxkit\n")
    docs_only = review(voxkit.path, "--base", "HEAD", "--worktree")
    assert docs_only.returncode == 0, docs_only.stdout
    summary = json.loads(docs_only.stdout)
    assert summary["warnings"] == [
        "the merge base of HEAD and HEAD is HEAD itself: only uncommitted changes are reviewed",
        "no Python file changed: the linter had nothing to check",
    ]
    assert (summary["files"], summary["changed"]["other"]) == (0, 1)


def without_linter(tmp_path: Path) -> tuple[str, dict[str, str]]:
    """A Python that cannot import torchperf-lint, and a PATH without its command."""
    venv = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    folders = [f for f in os.environ["PATH"].split(os.pathsep) if f and not (Path(f) / "torchperf-lint").exists()]
    bare_bin = venv / ("Scripts" if os.name == "nt" else "bin")
    return str(bare_bin / "python"), {**os.environ, "PATH": os.pathsep.join([str(bare_bin), *folders])}


def test_a_python_without_the_linter_exits_2_saying_so(voxkit, tmp_path):
    python, env = without_linter(tmp_path)
    result = review(voxkit.path, "--base", "main", python=python, env=env)
    assert result.returncode == 2, result.stdout + result.stderr
    error = json.loads(result.stdout)["error"]
    assert error.startswith(f"torchperf-lint cannot be imported by {python} and no `torchperf-lint` command")
    assert "Expecting value" not in result.stdout + result.stderr
    fake = tmp_path / "fake" / "torchperf_lint"  # importable, but its dependencies are missing
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "__main__.py").write_text("raise ModuleNotFoundError(\"No module named 'libcst'\")\n")
    broken = review(voxkit.path, "--base", "main", python=python, env={**env, "PYTHONPATH": str(fake.parent)})
    assert broken.returncode == 2, broken.stdout + broken.stderr
    assert json.loads(broken.stdout) == {
        "error": "torchperf-lint failed (exit 1): ModuleNotFoundError: No module named 'libcst'"
    }


def test_without_the_module_the_command_on_path_is_used(voxkit, tmp_path):
    python, env = without_linter(tmp_path)
    env["PATH"] = f"{BIN}{os.pathsep}{env['PATH']}"  # the command, as pipx would put it, but not the module
    result = review(voxkit.path, "--base", "main", python=python, env=env)
    assert result.returncode == 1, result.stdout + result.stderr
    assert json.loads(result.stdout)["new"] == 3


# --- what the script lists beyond findings ----------------------------------------------------------------


def test_removed_tests_and_deleted_evidence_are_found_in_worktree_mode_too(voxkit):
    voxkit.git("reset", "-q", "--soft", "main")  # the whole change uncommitted (staged)
    result = review(voxkit.path, "--base", "main", "--worktree")
    assert result.returncode == 1, result.stdout
    summary = json.loads(result.stdout)
    assert [item["file"] for item in summary["deleted"]] == [DELETED]
    assert summary["removed_tests"] == [{"file": "tests/test_resize.py", "test": "test_resize_output_can_train"}]
    assert [item["line"] for item in summary["inference_mode_added"]] == [
        voxkit.line_of("src/voxkit/resize.py", "with torch.inference_mode()")
    ]


def test_a_test_that_moved_to_another_file_is_not_removed(voxkit):
    moved = TESTS[TESTS.index("def test_resize_output_can_train") :]
    header = "import torch\nfrom voxkit.resize import resize3d\n\n\n"
    (voxkit.path / "tests" / "test_training.py").write_text(header + moved)
    voxkit.git("add", "-A")
    voxkit.git("commit", "-q", "-m", "the training test has a file of its own")
    summary = json.loads(review(voxkit.path, "--base", "main").stdout)
    assert summary["removed_tests"] == []


def test_lists_are_bounded_and_say_what_they_left_off(voxkit):
    result = review(voxkit.path, "--base", "main", "--limit", "1")
    summary = json.loads(result.stdout)
    assert len(summary["shown"]) == 1 and summary["new"] == 3
    assert (summary["truncated"], summary["omitted"]) == (True, {"shown": 2})


# --- the script's pure parts -------------------------------------------------------------------------------------


@functools.cache
def script_module():
    """The script as a module (it lives outside any package)."""
    spec = importlib.util.spec_from_file_location("review_changes", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("src/voxkit/resize.py", "kernel"),
        ("voxkit/geometric/functional.py", "kernel"),
        ("tests/test_resize.py", "test"),
        ("src/voxkit/tests/helpers.py", "test"),
        ("voxkit/resize_test.py", "test"),
        ("conftest.py", "test"),
        ("benchmarks/bench_resize.py", "benchmark"),
        ("asv_bench/benchmarks.py", "benchmark"),
        ("docs/benchmarks/resize.md", "benchmark"),
        ("reference_kernels/results/bench-full.json", "benchmark"),
        ("setup.py", "other"),
        ("docs/conf.py", "other"),
        ("tools/release.py", "other"),
        ("README.md", "other"),
    ],
)
def test_kinds_follow_the_path(path, kind):
    assert script_module().kind_of(path) == kind


def test_test_names_are_the_ones_pytest_collects():
    source = b"def test_a(): ...\nasync def test_b(): ...\ndef helper(): ...\n" + (
        b"class TestRoutes:\n    def test_c(self): ...\n    def setup_method(self): ...\n"
        b"class Helper:\n    def test_d(self): ...\n"
    )
    assert script_module().test_names(source) == {"test_a", "test_b", "TestRoutes.test_c"}
