"""The kernel map, inferred with no configuration, as the command line shows it and the rules use it.

``tests/fixtures/kernel_map`` holds two packages: ``kern``, whose docstrings and callers say what its
functions are and whose primitives mostly run under ``torch.no_grad()``, and ``diffy``, a
differentiable package that never guards.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURE = Path(__file__).parent / "fixtures" / "kernel_map"

FINDINGS = [
    ("kern/routers.py", 12, 9, "TPL005"),  # the same isinstance check kern.api.warp ran before calling
    ("kern/routers.py", 24, 9, "TPL005"),  # dtype, which the docstring says callers validate
    ("kern/routers.py", 27, 10, "TPL008"),  # inference tensors returned
    ("kern/routers.py", 41, 5, "TPL102"),  # repairs a parameter the Args entry calls prevalidated
    ("kern/sampling.py", 28, 12, "TPL007"),  # the one unguarded primitive of a guarding package
    ("kern/steps.py", 8, 9, "TPL005"),  # only called from the prevalidated scale(), in another module
    # and nothing in kern/checks.py: _check_extent runs only after crop() validated, but it is a
    # validator, so its check is the validation crop() asks for, not a second one
]


def cli(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "torchperf_lint", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, input=stdin)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    target = tmp_path / "project"
    shutil.copytree(FIXTURE, target)
    return target


def spots(output: str) -> list[tuple[str, int, int, str]]:
    return [
        (item["filename"], item["location"]["row"], item["location"]["column"], item["code"])
        for item in json.loads(output)
    ]


def relative(found: list[tuple[str, int, int, str]], root: Path) -> list[tuple[str, int, int, str]]:
    return [(Path(path).relative_to(root).as_posix(), *rest) for path, *rest in found]


def test_a_default_run_reports_each_kind_of_breach_the_map_makes_knowable(project):
    result = cli("check", "--no-cache", "--output-format", "json", ".", cwd=project)
    assert relative(spots(result.stdout), project) == FINDINGS


def test_messages_name_the_docstring_line_the_caller_or_the_convention(project):
    result = cli("check", "--no-cache", "-q", "--select", "TPL005,TPL007", ".", cwd=project)
    assert result.stdout.splitlines() == [
        "kern/routers.py:12:9: TPL005 `raise TypeError` re-validates inside caller-prevalidated "
        "`kern.routers._warp_router` (only called after `kern.api.warp` checks what it passes); "
        "validate once at the public entry",
        "kern/routers.py:24:9: TPL005 `raise ValueError` re-validates inside caller-prevalidated "
        '`kern.routers.resample` (its docstring: "Callers validate the container, layout and dtype."); '
        "validate once at the public entry",
        "kern/sampling.py:28:12: TPL007 `torch.nn.functional.interpolate` runs outside `torch.no_grad()` in "
        "primitive `kern.sampling.upsample` (5 of 6 primitives in `kern` run their heavy calls under a grad "
        "guard); guard the kernel body",
        "kern/steps.py:8:9: TPL005 `raise ValueError` re-validates inside caller-prevalidated "
        "`kern.steps._double` (only called from prevalidated `kern.routers.scale`); validate once at the "
        "public entry",
    ]


def test_the_map_lists_every_entry_with_its_reason(project):
    result = cli("map", "kern/routers.py", "kern/steps.py", cwd=project)
    assert result.returncode == 0
    assert result.stdout.splitlines() == [
        "kern/routers.py:10: kern.routers._warp_router",
        "    prevalidated: only called after `kern.api.warp` checks what it passes "
        "(covers volume: `not isinstance(volume, torch.Tensor)`; `volume.ndim != 4`)",
        "    primitive: caller-prevalidated",
        "kern/routers.py:18: kern.routers.resample",
        '    prevalidated: its docstring: "Callers validate the container, layout and dtype." '
        "(covers all parameters: container, dtype, layout, shape)",
        "    primitive: caller-prevalidated",
        "    grad guard: its heavy calls run under one",
        "kern/routers.py:32: kern.routers.scale",
        '    prevalidated: its docstring: "volume: Prevalidated float32 CDHW volume." '
        "(covers volume: every property)",
        "    primitive: caller-prevalidated",
        "    grad guard: its heavy calls run under one",
        "kern/steps.py:6: kern.steps._double",
        "    prevalidated: only called from prevalidated `kern.routers.scale` (covers volume: every property)",
        "    primitive: caller-prevalidated",
        "4 prevalidated, 4 primitives in 2 files.",
        "Grad-guard convention of `kern`: 5 of 6 primitives in `kern` run their heavy calls under a grad guard.",
    ]


def test_a_package_that_never_guards_gets_no_grad_guard_finding(project):
    result = cli("map", "diffy", "--output-format", "json", cwd=project)
    document = json.loads(result.stdout)
    assert [(row["function"], row["grad_guard"]) for row in document["functions"]] == [
        ("diffy.layers.conv", None),
        ("diffy.layers.warp", None),
        ("diffy.layers._inner", None),
        ("diffy.layers.padded", None),
    ]
    assert "diffy" not in document["conventions"]
    assert cli("check", "--no-cache", "-q", "diffy", cwd=project).stdout == ""


def test_stdin_and_a_lone_file_use_the_whole_project_map(project):
    source = (project / "kern" / "steps.py").read_text()
    from_stdin = cli(
        "check", "--no-cache", "-q", "-", "--stdin-filename", "kern/steps.py", cwd=project, stdin=source
    )
    from_file = cli("check", "--no-cache", "-q", "kern/steps.py", cwd=project)
    assert from_stdin.stdout == from_file.stdout
    assert from_file.stdout.startswith("kern/steps.py:8:9: TPL005 ")


def test_an_unsaved_edit_changes_the_map_for_its_own_file(project):
    """Standard input stands for the file: its callers' checks are read from disk, its own from stdin."""
    edited = (project / "kern" / "routers.py").read_text().replace("def resample(", "def resample_all(")
    result = cli("check", "--no-cache", "-q", "--select", "TPL005", "-", "--stdin-filename", "kern/routers.py",
                 cwd=project, stdin=edited)  # fmt: skip
    assert "`kern.routers.resample_all` (its docstring: " in result.stdout


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ('not-prevalidated = ["kern.routers.resample"]', [f for f in FINDINGS if f[1] != 24]),
        ('not-primitives = ["kern.sampling.upsample"]', [f for f in FINDINGS if f[3] != "TPL007"]),
        ("infer-kernel-map = false", []),
        (
            'infer-kernel-map = false\nprimitives = ["kern.sampling.*"]',
            [("kern/sampling.py", 19, 12, "TPL007"), ("kern/sampling.py", 28, 12, "TPL007")],
        ),
    ],
    ids=["not-prevalidated", "not-primitives", "inference-off", "declared-only"],
)
def test_configuration_removes_or_declares_entries(project, setting, expected):
    (project / "pyproject.toml").write_text(f"[tool.torchperf-lint]\n{setting}\n")
    result = cli("check", "--no-cache", "--output-format", "json", ".", cwd=project)
    assert relative(spots(result.stdout), project) == expected
