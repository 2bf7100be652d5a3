"""A change to a copy of the reference kernels with planted defects, reviewed as a reviewer would:
``handoff check`` names each defect with its code at its line, and the reviewers' script finds every
linter-visible violation, new ones as ``new`` and the one the base already had as ``existing``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from kernels.handoff_results import must_list
from torchperf_lint.reference_kernels.bench.provenance import source_sha256
from torchperf_lint.reference_kernels.handoff import render_handoff

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "reference_kernels"
SKILL = ROOT / "skill" / "torchperf-review"
SCRIPT = Path("scripts") / "review_changes.py"

#: On the base already: a device route in a helper (moved, unchanged, by the change).
LEGACY = """

def _legacy_copy(volume):
    return volume.to("cuda")
"""
#: Added by the change to routers.py: a compiled route and a prevalidated router that re-validates and
#: leaves the CPU.
ROUTER_DEFECTS = """

@torch.compile
def _compiled_route(volume):
    return volume


def _checked_route(volume):  # torchperf: prevalidated
    assert volume.ndim == 5
    return volume.cuda()
"""
#: Added by the change to sampling.py: library code that sets the thread count.
SAMPLING_DEFECT = """

def _pin_threads():
    torch.set_num_threads(1)
"""


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


def commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "-c", "user.email=r@example.org", "-c", "user.name=r", "commit", "-q", "-m", message)


def line_of(text: str, needle: str) -> int:
    return next(number for number, line in enumerate(text.splitlines(), start=1) if needle in line)


def measured_on(kernels: Path, committed: dict) -> dict:
    """The committed figures as if measured on ``kernels`` at 1 thread only, on a 2-core machine,
    with one region made slower than naive so that Regressions has something to list."""
    data = json.loads(json.dumps(committed))
    data["regions"] = [row for row in data["regions"] if row["threads"] == 1]
    slow = next(row for row in data["regions"] if row["route"] == "general-3d")
    naive = next(c for c in slow["candidates"] if c["name"] == "naive")
    public = next(c for c in slow["candidates"] if c["name"] == "public")
    public["median_ms"] = round(naive["median_ms"] * 1.25, 3)
    names = data["provenance"]["sources"]
    data["provenance"].update(threads=[1], cores=2, sources={n: source_sha256(kernels / n) for n in names})
    return data


@pytest.fixture(scope="module")
def change(tmp_path_factory) -> Path:
    repo = tmp_path_factory.mktemp("review") / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    kernels = repo / "reference_kernels"
    shutil.copytree(KERNELS, kernels, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(SKILL, repo / "skill" / "torchperf-review", ignore=shutil.ignore_patterns("__pycache__"))
    (repo / "pyproject.toml").write_text("[tool.torchperf-lint]\n")
    (repo / ".gitignore").write_text("__pycache__/\n")
    routers = kernels / "routers.py"
    routers.write_text(routers.read_text() + LEGACY)
    results = kernels / "results"
    committed = json.loads((KERNELS / "results" / "bench-full.json").read_text())
    base_results = measured_on(kernels, committed)
    (results / "bench-full.json").write_text(json.dumps(base_results, indent=2) + "\n")
    notes = (results / "notes.md").read_text()
    (results / "HANDOFF.md").write_text(render_handoff(base_results, notes))
    commit(repo, "base: results measured on this code")
    installed = subprocess.run(
        [sys.executable, "-m", "torchperf_lint", "skill", "install"], cwd=repo, capture_output=True, text=True
    )
    assert installed.returncode == 0, installed.stderr
    commit(repo, "base: the installed skill")

    git(repo, "checkout", "-q", "-b", "change")
    text = routers.read_text()
    assert "\nFOLD_MIN_BATCH = 2\n" in text
    text = text.replace("\nFOLD_MIN_BATCH = 2\n", "\nFOLD_MIN_BATCH = 8\n")  # a threshold moved without evidence
    routers.write_text(text.replace(LEGACY, ROUTER_DEFECTS + LEGACY))  # the legacy helper moves down
    sampling = kernels / "sampling.py"
    sampling.write_text(sampling.read_text() + SAMPLING_DEFECT)
    report = (results / "HANDOFF.md").read_text()
    regressions = report.index("## Regressions\n")
    rejected = report.index("## Rejected regions\n")
    (results / "HANDOFF.md").write_text(report[:regressions] + "## Regressions\n\nNone.\n\n\n" + report[rejected:])
    commit(repo, "change: faster folding")
    return repo


def test_handoff_check_names_every_planted_defect_at_its_line(change):
    kernels = change / "reference_kernels"
    report = (kernels / "results" / "HANDOFF.md").read_text()
    routers = (kernels / "routers.py").read_text()
    command = [sys.executable, "-m", "torchperf_lint", "handoff", "check", "reference_kernels/results/HANDOFF.md",
               "--source", "reference_kernels"]  # fmt: skip
    result = subprocess.run(command, cwd=change, capture_output=True, text=True)
    assert result.returncode == 1, result.stderr
    spots = [" ".join(line.split(" ")[:2]) for line in result.stdout.splitlines()]
    handoff, source = "reference_kernels/results/HANDOFF.md", "reference_kernels/routers.py"
    none = line_of(report, "None.")
    stale = line_of(report, "Sources measured:")
    threads = line_of(report, "Threads: 1.")
    results = json.loads((kernels / "results" / "bench-full.json").read_text())
    slow = [row for row in results["regions"] if must_list(row)]  # the planted one, and any measured
    assert spots == [
        f"{handoff}:{stale}: HC003",  # routers.py changed since the run
        f"{handoff}:{stale}: HC003",  # sampling.py too
        f"{handoff}:{threads}: HC005",  # no results at the core count (2 threads)
        f"{handoff}:{none}: HC002",  # hand-edited: the render lists regressions here
        *[f"{handoff}:{none}: HC004"] * len(slow),  # regions slower than naive, not under Regressions
        f"{source}:{line_of(routers, 'FOLD_MIN_BATCH = 8')}: HC008",  # threshold moved without evidence
        f"{source}:{line_of(routers, '# Route: depth-split')}: HC009",  # only 2 threads take that route
    ]
    lines = result.stdout.splitlines()
    assert "routers.py changed since the run" in lines[0] and "sampling.py changed since the run" in lines[1]
    assert "no results at 2 threads (the machine's core count)" in lines[2]
    assert "FOLD_MIN_BATCH is 8, but its evidence was measured for 2" in lines[-2]


def review(repo: Path, cwd: Path, script: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(script), *args], cwd=cwd, capture_output=True, text=True)


def test_the_script_marks_new_and_existing_findings(change):
    routers = (change / "reference_kernels" / "routers.py").read_text()
    sampling = (change / "reference_kernels" / "sampling.py").read_text()
    result = review(change, change, change / "skill" / "torchperf-review" / SCRIPT)
    assert result.returncode == 1, result.stdout
    summary = json.loads(result.stdout)
    assert (summary["mode"], summary["base"], summary["files"]) == ("committed", "main", 2)
    assert summary["merge_base"] == git(change, "rev-parse", "main").strip()
    found = [(f["file"], f["line"], f["rule"], f["status"]) for f in summary["shown"]]
    assert found == [
        ("reference_kernels/routers.py", line_of(routers, "@torch.compile") , "TPL002", "new"),
        ("reference_kernels/routers.py", line_of(routers, "assert volume.ndim"), "TPL005", "new"),
        ("reference_kernels/routers.py", line_of(routers, "return volume.cuda()"), "TPL003", "new"),
        ("reference_kernels/sampling.py", line_of(sampling, "torch.set_num_threads(1)"), "TPL104", "new"),
        ("reference_kernels/routers.py", line_of(routers, 'volume.to("cuda")'), "TPL003", "existing"),
    ]  # fmt: skip
    assert (summary["findings"], summary["new"], summary["existing"]) == (5, 4, 1)
    assert summary["counts"]["TPL003"] == {"new": 1, "existing": 1}


def test_the_script_gives_the_same_json_from_anywhere_and_writes_nothing(change):
    status = git(change, "status", "--porcelain", "--ignored")
    skill = change / "skill" / "torchperf-review"
    installed = change / ".agents" / "skills" / "torchperf-review"
    runs = [
        review(change, change, skill / SCRIPT),  # from the repository root
        review(change, skill, SCRIPT),  # from the skill folder, as the skill tells an agent
        review(change, installed, SCRIPT),  # the copy `skill install` wrote
        review(change, change / "reference_kernels" / "bench", installed / SCRIPT),  # any folder
    ]
    assert [run.returncode for run in runs] == [1, 1, 1, 1]
    assert len({run.stdout for run in runs}) == 1 and json.loads(runs[0].stdout)["new"] == 4
    assert git(change, "status", "--porcelain", "--ignored") == status


def test_worktree_mode_adds_uncommitted_and_untracked_files(change):
    kernels = change / "reference_kernels"
    script = change / "skill" / "torchperf-review" / SCRIPT
    extra, layouts, routers = kernels / "scratch.py", kernels / "layouts.py", kernels / "routers.py"
    originals = {path: path.read_text() for path in (layouts, routers)}
    try:
        extra.write_text("import torch\n\n\ndef f(x):\n    return x.cuda()\n")
        for path, text in originals.items():
            path.write_text(text + "\n\ndef _uncommitted(x):\n    return x.cuda()\n")
        committed = json.loads(review(change, change, script).stdout)
        worktree = json.loads(review(change, change, script, "--worktree").stdout)
    finally:
        extra.unlink()
        for path, text in originals.items():
            path.write_text(text)
    # committed mode lints routers.py as HEAD has it (through stdin), so its edit does not count
    assert (committed["mode"], committed["files"], committed["new"]) == ("committed", 2, 4)
    assert (worktree["mode"], worktree["files"], worktree["new"]) == ("worktree", 4, 7)
    assert {f["file"] for f in worktree["shown"]} == {
        "reference_kernels/routers.py",
        "reference_kernels/sampling.py",
        "reference_kernels/scratch.py",
        "reference_kernels/layouts.py",
    }
