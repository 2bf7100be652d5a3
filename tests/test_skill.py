"""The reviewers' skill: spec validity, drift of the rendered reference, install, and the workflow."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from torchperf_lint import skills
from torchperf_lint.registry import all_rules

ROOT = Path(__file__).resolve().parents[1]
SKILL = ROOT / "skill" / "torchperf-review"
AGENTSKILLS = shutil.which("agentskills")
SPEC_FIELDS = {"name", "description", "license", "compatibility", "metadata"}


def cli(*args, cwd=None, stdin=None):
    command = [sys.executable, "-m", "torchperf_lint", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, input=stdin)


@pytest.mark.skipif(AGENTSKILLS is None, reason="skills-ref is not installed")
def test_the_reference_validator_accepts_the_skill():
    result = subprocess.run([AGENTSKILLS, "validate", str(SKILL)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_frontmatter_keeps_the_stricter_limits():
    from skills_ref import read_properties

    text = (SKILL / "SKILL.md").read_text()
    frontmatter = text.split("---")[1]
    keys = {line.split(":")[0] for line in frontmatter.splitlines() if line and not line.startswith(" ")}
    assert keys <= SPEC_FIELDS
    properties = read_properties(SKILL)
    assert properties.name == SKILL.name and re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", properties.name)
    assert len(properties.name) <= 64
    assert 0 < len(properties.description) <= 1024 and not set("<>") & set(properties.description)
    assert len(text.split("---", 2)[2].splitlines()) < 500
    nested = [p for p in SKILL.rglob("*") if p.is_file() and len(p.relative_to(SKILL).parts) > 2]
    assert [p for p in nested if "__pycache__" not in p.parts] == []


def test_rendered_rules_reference_is_current_and_drift_is_caught(tmp_path, monkeypatch):
    current = cli("skill", "render", "--check")
    assert current.returncode == 0
    assert current.stderr.endswith("torchperf-review/references/rules.md is up to date\n")
    copy = tmp_path / "torchperf-review"
    shutil.copytree(SKILL, copy)
    rule = all_rules()["TPL003"]
    monkeypatch.setattr(rule, "summary", "A reworded summary")
    assert skills.drifted(copy)
    skills.write_rules(copy)
    assert not skills.drifted(copy)
    assert "**Catches:** A reworded summary." in (copy / "references" / "rules.md").read_text()


def test_the_rules_reference_carries_each_rules_notes_and_options():
    text = (SKILL / "references" / "rules.md").read_text()
    with_notes = [rule for rule in all_rules().values() if rule.notes]
    with_options = [rule for rule in all_rules().values() if rule.options]
    assert with_notes and with_options
    for rule in with_notes:
        assert f"**Notes:** {rule.notes}" in text
    for rule in with_options:
        assert f"**Options:**\n\n{rule.options}" in text


def test_the_workflow_covers_the_project_contract_tests_probe_evidence_verdicts_and_false_positives():
    text = (SKILL / "SKILL.md").read_text()
    for needed in (
        "**The project's own written contract wins**",
        "torchperf-lint map PACKAGE_DIR",  # the kernel map, checked and corrected
        'python -c "import PKG; print(PKG.__file__)"',  # the project's tests on the reviewed tree
        "**could not run**",
        "torchperf-lint probe PKG.MODULE:FUNCTION ARGS --base base.json",
        "torchperf-lint handoff check REPORT.md",
        "--source PACKAGE_DIR",
        "## Other findings",
        "- **comment**:",
        "# noqa: CODE  # false positive: REASON",
        "`new` findings are the change's",
    ):
        assert needed in text, needed


def test_install_copies_a_valid_skill_and_refuses_to_overwrite_local_edits(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    assert cli("skill", "install", cwd=project).returncode == 0
    installed = project / ".agents" / "skills" / "torchperf-review"
    assert skills.local_edits(SKILL, installed) == []
    if AGENTSKILLS:
        assert subprocess.run([AGENTSKILLS, "validate", str(installed)], capture_output=True).returncode == 0
    (installed / "SKILL.md").write_text("edited\n")
    refused = cli("skill", "install", cwd=project)
    assert refused.returncode == 1 and "local edits (SKILL.md)" in refused.stderr
    assert (installed / "SKILL.md").read_text() == "edited\n"
    assert cli("skill", "install", "--force", cwd=project).returncode == 0
    assert skills.local_edits(SKILL, installed) == []
    assert cli("skill", "install", "--dest", ".claude/skills", cwd=project).returncode == 0
    assert (project / ".claude" / "skills" / "torchperf-review" / "SKILL.md").is_file()


BASE_KERNEL = """import torch
import torch.nn.functional as F


def route(volume, grid):  # torchperf: prevalidated
    with torch.no_grad():
        return F.grid_sample(volume, grid, align_corners=False)
"""
CHANGED_KERNEL = """import torch
import torch.nn.functional as F


@torch.compile
def route(volume, grid):  # torchperf: prevalidated
    with torch.no_grad():
        return F.grid_sample(volume.cuda(), grid, align_corners=False)


def main():
    torch.set_num_threads(1)  # noqa: TPL104 - benchmark entry point, sets threads on purpose
"""
INCOMPLETE_HANDOFF = """# Handoff
## Full-path baseline
public call 12 ms at 1 thread
"""


def test_the_skill_workflow_on_a_fixture_change(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*args):
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)

    git("init", "-q")
    git("-c", "user.email=r@example.org", "-c", "user.name=r", "commit", "-q", "--allow-empty", "-m", "start")
    (repo / "kernel.py").write_text(BASE_KERNEL)
    git("add", "kernel.py")
    git("-c", "user.email=r@example.org", "-c", "user.name=r", "commit", "-q", "-m", "base")
    (repo / "kernel.py").write_text(CHANGED_KERNEL)
    (repo / "HANDOFF.md").write_text(INCOMPLETE_HANDOFF)

    script = SKILL / "scripts" / "review_changes.py"
    review = subprocess.run(
        [sys.executable, str(script), "--base", "HEAD", "--worktree"], capture_output=True, text=True, cwd=repo
    )
    assert review.returncode == 1, review.stdout
    summary = json.loads(review.stdout)
    assert summary["mode"] == "worktree" and summary["files"] == 1 and not summary["truncated"]
    assert (summary["findings"], summary["new"], summary["existing"]) == (2, 2, 0)
    assert summary["counts"] == {"TPL002": {"new": 1, "existing": 0}, "TPL003": {"new": 1, "existing": 0}}
    assert [(f["file"], f["line"], f["column"], f["rule"], f["status"]) for f in summary["shown"]] == [
        ("kernel.py", 5, 2, "TPL002", "new"),
        ("kernel.py", 8, 30, "TPL003", "new"),
    ]
    assert summary["shown"][0]["hint"] == all_rules()["TPL002"].hint
    committed = subprocess.run([sys.executable, str(script), "--base", "HEAD"], capture_output=True, cwd=repo)
    assert committed.returncode == 2  # nothing committed yet: nothing to review, which is no clean result
    assert json.loads(committed.stdout)["error"].startswith("nothing to review: the merge base of HEAD and HEAD")

    check = cli("handoff", "check", "HANDOFF.md", cwd=repo)
    assert check.returncode == 2
    assert "no bench-full.json (or single results JSON) next to the report; pass --results" in check.stderr


def test_review_script_reports_a_bad_base_as_exit_2(tmp_path):
    script = SKILL / "scripts" / "review_changes.py"
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    result = subprocess.run(
        [sys.executable, str(script), "--base", "nope"], capture_output=True, text=True, cwd=tmp_path
    )
    assert result.returncode == 2 and "git merge-base nope HEAD failed" in json.loads(result.stdout)["error"]
    outside = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path.parent)
    assert outside.returncode == 2 and "rev-parse --show-toplevel failed" in json.loads(outside.stdout)["error"]


BLOCK_TORCH = "import sys; sys.modules['torch'] = None; from torchperf_lint.cli import main; sys.exit(main())"


def test_handoff_commands_work_without_torch(tmp_path):
    results = ROOT / "reference_kernels" / "results"
    command = [sys.executable, "-c", BLOCK_TORCH, "handoff", "render", str(results / "bench-full.json"),
               "--notes", str(results / "notes.md"), "-o", str(tmp_path / "HANDOFF.md")]  # fmt: skip
    rendered = subprocess.run(command, capture_output=True, text=True)
    assert rendered.returncode == 0, rendered.stderr
    assert (tmp_path / "HANDOFF.md").read_text() == (results / "HANDOFF.md").read_text()
    checked = subprocess.run(
        [sys.executable, "-c", BLOCK_TORCH, "handoff", "check", str(results / "HANDOFF.md")],
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


SCRIPT = SKILL / "scripts" / "review_changes.py"
CLEAN = "import torch\n\n\ndef route(volume):\n    return volume + 1\n"
ON_DEVICE = "import torch\n\n\ndef route(volume):\n    return volume.cuda()\n"


def fixture_repo(repo: Path, files: dict[str, str]):
    """A repository on branch main whose first commit holds ``files``; returns its git runner."""
    repo.mkdir()

    def git(*args: str) -> str:
        identity = ["-c", "user.email=r@example.org", "-c", "user.name=r"]
        return subprocess.run(
            ["git", *identity, *args], cwd=repo, check=True, capture_output=True, text=True
        ).stdout

    git("init", "-q", "-b", "main")
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git("add", "-A")
    git("commit", "-q", "-m", "base")
    return git


def shown(summary: dict) -> list[tuple]:
    return [(f["file"], f["line"], f["column"], f["rule"], f["status"]) for f in summary["shown"]]


def test_the_script_compares_with_the_merge_base_not_the_base_branch_tip(tmp_path):
    repo = tmp_path / "repo"
    git = fixture_repo(repo, {"changed.py": CLEAN, "other.py": ON_DEVICE})
    branch_point = git("rev-parse", "HEAD").strip()
    git("checkout", "-q", "-b", "change")
    (repo / "changed.py").write_text(ON_DEVICE)  # the change's own violation
    git("commit", "-q", "-am", "change")
    git("checkout", "-q", "main")  # main moves on: the same line lands there, and a new violation elsewhere
    (repo / "changed.py").write_text(ON_DEVICE)
    (repo / "other.py").write_text(ON_DEVICE + "\n\ndef later(volume):\n    return volume.to('cuda')\n")
    git("commit", "-q", "-am", "main moves on")
    git("checkout", "-q", "change")
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--base", "main"], capture_output=True, text=True, cwd=repo
    )
    assert result.returncode == 1, result.stdout
    summary = json.loads(result.stdout)
    assert (summary["merge_base"], summary["files"], summary["new"], summary["existing"]) == (
        branch_point,
        1,
        1,
        0,
    )
    assert shown(summary) == [("changed.py", 5, 12, "TPL003", "new")]


def test_a_renamed_file_is_compared_with_its_old_path_at_the_merge_base(tmp_path):
    repo = tmp_path / "repo"
    edited = ON_DEVICE.replace("import torch\n", "import torch\n\nSCALE = 2\n")
    git = fixture_repo(repo, {"pkg/moved.py": ON_DEVICE, "pkg/edited.py": edited})
    git("checkout", "-q", "-b", "change")
    git("mv", "pkg/moved.py", "pkg/routes.py")  # a pure move
    git("mv", "pkg/edited.py", "pkg/kernels.py")  # a move with an edit that adds a violation
    (repo / "pkg" / "kernels.py").write_text(edited + "\n\ndef added(volume):\n    return volume.to('cuda')\n")
    worktree = subprocess.run(
        [sys.executable, str(SCRIPT), "--base", "main", "--worktree"], capture_output=True, text=True, cwd=repo
    )
    git("commit", "-q", "-am", "move")
    committed = subprocess.run(
        [sys.executable, str(SCRIPT), "--base", "main"], capture_output=True, text=True, cwd=repo
    )
    for result in (worktree, committed):
        assert result.returncode == 1, result.stdout
        summary = json.loads(result.stdout)
        assert (summary["files"], summary["new"], summary["existing"]) == (2, 1, 2)
        assert shown(summary) == [
            ("pkg/kernels.py", 11, 22, "TPL003", "new"),
            ("pkg/kernels.py", 7, 12, "TPL003", "existing"),
            ("pkg/routes.py", 5, 12, "TPL003", "existing"),
        ]
    git("checkout", "-q", "-b", "only-moved", "main")
    git("mv", "pkg/moved.py", "pkg/routes.py")
    git("commit", "-q", "-m", "only a move")
    moved = subprocess.run(
        [sys.executable, str(SCRIPT), "--base", "main"], capture_output=True, text=True, cwd=repo
    )
    assert moved.returncode == 0, moved.stdout
    assert shown(json.loads(moved.stdout)) == [("pkg/routes.py", 5, 12, "TPL003", "existing")]


def section(text: str, heading: str) -> str:
    """The body under ``heading`` up to the next heading of any level."""
    body = text.split(f"{heading}\n", 1)[1]
    return re.split(r"\n#+ ", body, maxsplit=1)[0]


def test_the_contract_table_lists_every_contract_and_hazard_rule():
    contract = (SKILL / "references" / "contract.md").read_text()
    listed = re.findall(r"\| (TPL\d{3}) \|$", section(contract, "## What the linter checks"), re.MULTILINE)
    assert listed == sorted(code for code in all_rules() if not code.startswith("TPL9"))


def test_the_grad_guard_default_names_the_rule_and_yields_to_the_projects_contract():
    skill_text = (SKILL / "SKILL.md").read_text()
    contract = (SKILL / "references" / "contract.md").read_text()
    for passage in (
        section(skill_text, "## The default contract, and whose contract wins"),
        section(contract, "### Grad guard: no-grad by default, inference mode only where the project allows it"),
    ):
        assert "TPL008" in passage and "inference_mode" in passage, passage
        assert "never feed a graph" in passage, passage  # what a project's own guide may allow
    assert "never `torch.inference_mode()`" not in skill_text + contract  # no universal rule
    assert "round-half-up" not in skill_text + contract and "`rint`" in contract  # the project's rounding
