"""The reviewers' skill on a project that is not this one: a small kernel package (voxkit) with its own
contract, a docstring-prevalidated router and a size threshold between two routes, and a change with
planted defects of each kind the skill must surface. The script and the documented steps are run as a
reviewer would run them, from inside that repository, with nothing from this one on the way."""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
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
BENCH_VALIDATION = (  # untimed checking in a benchmark: a finding, but not kernel code
    "    start = time.perf_counter()\n",
    "    for size in SIZES:\n        if not torch.isfinite(resize3d(volume, size)).all():\n"
    '            print("not finite at", size)\n'
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


def shell(script: str, cwd: Path, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-c", script], cwd=cwd, capture_output=True, text=True, env=environment(**extra)
    )


def review(cwd: Path, *args: str, python: str = sys.executable, env: dict | None = None):
    command = [python, str(SCRIPT), *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env or environment())


def skill_text() -> str:
    """SKILL.md and every reference, as one text: where a documented command must appear."""
    return "\n".join(path.read_text() for path in [SKILL / "SKILL.md", *sorted(SKILL.glob("references/*.md"))])


def documented(command: str) -> str:
    assert command in skill_text(), command
    return command


# --- the script, by its documented invocation, on the planted change ---------------------------------


def test_the_documented_invocation_surfaces_every_planted_change(voxkit):
    setup = documented('SKILL_DIR="$(torchperf-lint skill path)"')
    run = documented('python "$SKILL_DIR/scripts/review_changes.py" --base "$BASE"')
    result = shell(f"{setup}\nBASE=main\n{run}", cwd=voxkit.path / "src" / "voxkit")  # deep inside the project
    assert result.returncode == 1, result.stdout + result.stderr
    summary = json.loads(result.stdout)
    resize, bench = "src/voxkit/resize.py", "benchmarks/bench_resize.py"
    assert (summary["mode"], summary["base"], summary["warnings"]) == ("committed", "main", [])
    assert [(f["file"], f["line"], f["rule"], f["kind"], f["status"]) for f in summary["shown"]] == [
        (resize, voxkit.line_of(resize, "Callers validate the container") + 2, "TPL005", "kernel", "new"),
        (resize, voxkit.line_of(resize, "with torch.inference_mode()"), "TPL008", "kernel", "new"),
        (bench, voxkit.line_of(bench, "if not torch.isfinite("), "TPL103", "benchmark", "new"),
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
    documented("""--base "$BASE" --config 'not-prevalidated = ["pkg.module.function"]'""")
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


# --- the documented steps beyond the script ----------------------------------------------------------------


def test_step_0_finds_the_projects_own_contract_and_the_map_shows_the_documented_router(voxkit):
    find = documented(
        "git ls-files | grep -iE '(^|/)(agents|claude|contributing|readme)\\.md$|^docs/"
        "|^\\.[a-z]+/(skills|rules)/|^\\.github/'"
    )
    grep = documented("git grep -il -e inference_mode -e no_grad -e benchmark -e threshold -- '*.md'")
    listed = shell(find, cwd=voxkit.path)
    assert listed.returncode == 0 and "AGENTS.md" in listed.stdout.split(), listed.stdout + listed.stderr
    found = shell(grep, cwd=voxkit.path)
    assert "AGENTS.md" in found.stdout.split(), found.stdout
    mapped = shell(documented("torchperf-lint map PACKAGE_DIR").replace("PACKAGE_DIR", "src"), cwd=voxkit.path)
    assert mapped.returncode == 0, mapped.stderr
    assert (
        "voxkit.resize._resize_router\n"
        '    prevalidated: its docstring: "Callers validate the container, layout and dtype."'
    ) in mapped.stdout
    corrected = shell(
        documented("torchperf-lint map PACKAGE_DIR --config 'not-prevalidated = [\"pkg.module.function\"]'")
        .replace("PACKAGE_DIR", "src")
        .replace("pkg.module.function", "voxkit.resize._resize_router"),
        cwd=voxkit.path,
    )
    assert corrected.returncode == 0, corrected.stderr
    assert "voxkit.resize._resize_router\n    primitive:" in corrected.stdout


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="the probe needs torch")
def test_step_5_probes_the_threshold_and_finds_the_inference_route(voxkit):
    export = documented('BASE_TREE="$(mktemp -d)" && git archive "$MERGE_BASE" | tar -x -C "$BASE_TREE"')
    root = documented("ROOT=.; [ -d src ] && ROOT=src")
    base_then_head = documented(
        'PYTHONPATH="$BASE_TREE/$ROOT" torchperf-lint probe PKG.MODULE:FUNCTION ARGS'
        " --output-format json > base.json \\\n"
        '     && PYTHONPATH="$PWD/$ROOT" torchperf-lint probe PKG.MODULE:FUNCTION ARGS --base base.json'
    )
    merge_base = voxkit.git("merge-base", "main", "HEAD").strip()
    reports = voxkit.path.parent / "reports"
    reports.mkdir()

    def probed(size: str) -> str:
        """The head's diff against the base for one call, by the documented commands."""
        script = "\n".join([export, root, base_then_head]).replace("base.json", f"{reports}/base.json")
        script = script.replace("PKG.MODULE:FUNCTION ARGS", f"voxkit.resize:resize3d tensor:1x4x4x4 '{size}'")
        result = shell(script, cwd=voxkit.path, MERGE_BASE=merge_base, TMPDIR=str(reports))
        assert result.returncode in (0, 1), result.stderr
        return result.stdout.split("against ", 1)[1]

    at = probed(AT_THRESHOLD)  # the small route: inference mode since the change
    assert "now breaches: returns inference tensors: result" in at
    assert "now breaches: result cannot feed a backward pass" in at
    past = probed(PAST_THRESHOLD)  # the large route: unchanged
    assert "breaches" not in past

    call = "torchperf-lint probe voxkit.resize:resize3d tensor:1x4x4x4"
    below = f"{call} '{AT_THRESHOLD}' --output-format json > {reports}/below.json"
    above = f"{call} '{PAST_THRESHOLD}' --base {reports}/below.json"
    sides = shell(f'export PYTHONPATH="$PWD/src"\n{below}\n{above}', cwd=voxkit.path)
    assert "no longer breaches: returns inference tensors: result" in sides.stdout  # the two sides differ


def test_removed_tests_and_deleted_evidence_are_found_in_worktree_mode_too(voxkit):
    voxkit.git("reset", "-q", "--soft", "main")  # the whole change uncommitted (staged)
    venv = voxkit.path / "env"  # a virtual environment the project does not ignore: not the change
    (venv / "lib").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (venv / "lib" / "installed.py").write_text("import torch\n\nwith torch.inference_mode():\n    pass\n")
    result = review(voxkit.path, "--base", "main", "--worktree")
    assert result.returncode == 1, result.stdout
    summary = json.loads(result.stdout)
    assert (summary["files"], summary["changed"]) == (3, {"kernel": 1, "benchmark": 2, "test": 1, "other": 0})
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


# --- the skill needs nothing that only this repository has ------------------------------------------------------

#: Names that exist only in this repository (or only suit it), allowed only in the worked example.
REPOSITORY_ONLY = ("reference_kernels", "tests/kernels", ".[dev]", "torch==2.13.0", "bench-full.json", "skill/")
#: Paths every Python project may have; they exist here too, but a reviewer finds them anywhere.
GENERIC = {"pyproject.toml", "README.md", "conftest.py", "tests", "benchmarks", "docs"}
WORKED_EXAMPLE = SKILL / "references" / "worked-example.md"
#: A word that may be a path: letters, digits, dots, dashes, stars and slashes, not part of a longer word.
WORD = re.compile(r"(?<![\w$./-])[\w.*-]+(?:/[\w.*-]*)*")


def code_of(text: str) -> list[str]:
    """The code spans and code blocks of a Markdown text: where commands and paths are written."""
    return re.findall(r"```.*?```|`[^`\n]+`", text, re.DOTALL)


def path_tokens(text: str) -> set[str]:
    """Words in code that look like paths: with a slash or a file suffix, not an option."""
    words = {word.rstrip("/.") for span in code_of(text) for word in WORD.findall(span)}
    return {w for w in words if ("/" in w or re.search(r"\.[a-z]{2,4}$", w)) and not w.startswith("-")}


def tracked_here() -> set[str]:
    """Every file and folder this repository tracks: what a checkout of another project lacks."""
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    paths = set()
    for name in files.splitlines():
        parts = name.split("/")
        paths |= {"/".join(parts[:end]) for end in range(1, len(parts) + 1)}
    return paths


def test_the_skill_needs_no_path_or_command_only_this_repository_has():
    ours = tracked_here()
    assert WORKED_EXAMPLE.read_text().startswith("# Worked example: the torchperf-lint repository\n")
    pages = [SKILL / "SKILL.md", *sorted(p for p in SKILL.glob("references/*.md") if p != WORKED_EXAMPLE)]
    commands = set()
    for page in pages:
        text = page.read_text()
        for name in REPOSITORY_ONLY:
            assert name not in text, f"{page.name} names {name!r} outside the worked example"
        for token in path_tokens(text):
            if token.startswith(("references/", "scripts/")):
                assert (SKILL / token).exists(), f"{page.name}: {token} is not in the skill"
            else:
                assert token in GENERIC or token not in ours, f"{page.name}: {token} is this repository's"
        commands |= {found for span in code_of(text) for found in re.findall(r"torchperf-lint (\w+)", span)}
    usage = subprocess.run([str(BIN / "torchperf-lint"), "--help"], capture_output=True, text=True).stdout
    offered = set(re.search(r"\{([\w,]+)\}", usage).group(1).split(","))
    assert commands and commands <= offered, commands - offered  # every command comes with the linter
