"""Syntax newer than the running Python is linted, and reported as Ruff reports it for the target version."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from helpers import lint

from torchperf_lint import python_versions
from torchperf_lint.config import Settings
from torchperf_lint.engine import lint_bytes
from torchperf_lint.registry import all_rules
from torchperf_lint.workspace import FileSettings, Project

#: Each construct once, at the positions and in the words of `ruff check --target-version py311`.
NEWER = """\
type Volume = int


def f[T](x: T) -> T:
    return x


class C[T]:
    pass


def g[T = int](x: T) -> T:
    return x


x = {"a": 1}
y = f"{x["a"]}"
z = f"{"\\n".join([])}"
w = f"{x # note
}"
try:
    pass
except ValueError, TypeError:
    pass
q = t"{x}"
v = f\"\"\"{"a"}\"\"\"
"""
RUFF_PY311 = [
    (1, 1, "Cannot use `type` alias statement on Python 3.11 (syntax was added in Python 3.12)"),
    (4, 6, "Cannot use type parameter lists on Python 3.11 (syntax was added in Python 3.12)"),
    (8, 8, "Cannot use type parameter lists on Python 3.11 (syntax was added in Python 3.12)"),
    (12, 6, "Cannot use type parameter lists on Python 3.11 (syntax was added in Python 3.12)"),
    (12, 9, "Cannot set default type for a type parameter on Python 3.11 (syntax was added in Python 3.13)"),
    (17, 10, "Cannot reuse outer quote character in f-strings on Python 3.11 (syntax was added in Python 3.12)"),
    (18, 8, "Cannot reuse outer quote character in f-strings on Python 3.11 (syntax was added in Python 3.12)"),
    (
        18,
        9,
        "Cannot use an escape sequence (backslash) in f-strings on Python 3.11 (syntax was added in Python 3.12)",
    ),
    (19, 10, "Cannot use comments in f-strings on Python 3.11 (syntax was added in Python 3.12)"),
    (23, 8, "Multiple exception types must be parenthesized on Python 3.11 (syntax was added in Python 3.14)"),
    (25, 5, "Cannot use t-strings on Python 3.11 (syntax was added in Python 3.14)"),
]

#: Real findings in a file CPython 3.11 rejects: they keep their exact positions.
KERNEL = """\
import torch

type Volume = torch.Tensor


@torch.compile
def route[T](volume: T) -> T:
    label = f"{volume.shape["depth"]}"
    return volume.cuda()


class Router[T]:
    def warp(self, volume: T) -> T:  # torchperf: prevalidated
        assert volume.ndim == 5
        return volume
"""


def options(target: python_versions.Version) -> FileSettings:
    rules = frozenset(all_rules())
    project = Project.of(Settings(root=Path.cwd(), target_version=target), rules)
    return FileSettings(Path("f.py"), project, "f", rules)


def found(source: str, target: python_versions.Version) -> list[tuple[int, int, str]]:
    return [(d.row, d.column, d.message) for d in lint_bytes(source.encode(), options(target))]


def test_every_construct_is_reported_where_and_as_ruff_reports_it():
    assert found(NEWER, (3, 11)) == RUFF_PY311


def test_a_newer_target_reports_only_what_is_newer_still():
    assert found(NEWER, (3, 13)) == [
        (23, 8, "Multiple exception types must be parenthesized on Python 3.13 (syntax was added in Python 3.14)"),
        (25, 5, "Cannot use t-strings on Python 3.13 (syntax was added in Python 3.14)"),
    ]
    assert found(NEWER, (3, 14)) == []


def test_the_rules_still_run_with_exact_positions():
    assert [(d.code, d.row, d.column) for d in lint(KERNEL)] == [
        ("TPL900", 3, 1),
        ("TPL002", 6, 2),
        ("TPL900", 7, 10),
        ("TPL900", 8, 29),
        ("TPL003", 9, 12),
        ("TPL900", 12, 13),
        ("TPL005", 14, 9),
    ]


def test_the_findings_are_those_of_the_same_code_without_the_newer_syntax():
    older = (
        KERNEL.replace("type Volume = torch.Tensor", "Volume = torch.Tensor     ")
        .replace("route[T]", "route   ")
        .replace('["depth"]', "['depth']")
        .replace("Router[T]", "Router   ")
    )
    assert [(d.code, d.row, d.column, d.end_row, d.end_column) for d in lint(older)] == [
        (d.code, d.row, d.column, d.end_row, d.end_column) for d in lint(KERNEL) if d.code != "TPL900"
    ]


def test_a_real_error_in_a_file_with_newer_syntax_is_still_an_error():
    assert found("type Volume = int\n\n\ndef f(:\n    pass\n", (3, 12)) == [(1, 6, "SyntaxError: invalid syntax")]


def test_a_plain_syntax_error_keeps_cpythons_message():
    assert found("def f(:\n    pass\n", (3, 11)) == [(1, 7, "SyntaxError: invalid syntax")]


def test_a_file_python_accepts_but_libcst_cannot_parse_is_not_called_a_syntax_error():
    """A method body indented with two tabs and four spaces in a class indented with spaces: CPython
    reads it one level deeper, LibCST's tokenizer finds no outer block to dedent to at the end."""
    text = "import torch\n\n\nclass M:\n    def f(self):\n        return 0\n\n    def g(self):\n\t\t    return 1\n"
    compile(text, "m.py", "exec")  # Python accepts it
    assert found(text, (3, 11)) == [
        (
            1,
            1,
            "LibCST cannot parse this file, though Python can (tokenizer error: no matching outer block for "
            "dedent); no rule checked it",
        )
    ]


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ("x = " + "lambda: " * 20_000 + "1", (1, 6, "SyntaxError: invalid syntax")),
        ("x = " + "-" * 20_000 + "1", (1, 6, "SyntaxError: invalid syntax")),
        ("x = " + "(" * 300 + "1" + ")" * 300, (2, 205, "SyntaxError: too many nested parentheses")),
    ],
    ids=["lambdas", "unary-minus", "brackets"],
)
def test_newer_syntax_does_not_hand_unbounded_nesting_to_libcst(body, error):
    """CPython stops at the type alias, so it never bounds what follows; LibCST would take gigabytes
    (or overflow the C stack) on it, so CPython's message stands."""
    assert found(f"type Volume = int\n{body}\n", (3, 11)) == [error]


def test_target_version_comes_from_the_flag_the_config_and_requires_python(tmp_path):
    (tmp_path / "k.py").write_text("import torch\n\ntype Volume = torch.Tensor\n")

    def codes(*args: str) -> str:
        command = [sys.executable, "-m", "torchperf_lint", "--no-cache", "-q", "k.py", *args]
        return subprocess.run(command, capture_output=True, text=True, cwd=tmp_path).stdout

    message = (
        "k.py:3:1: TPL900 Cannot use `type` alias statement on Python 3.11 (syntax was added in Python 3.12)\n"
    )
    assert codes() == message
    assert codes("--target-version", "py312") == ""
    (tmp_path / "pyproject.toml").write_text('[project]\nrequires-python = ">=3.12"\n[tool.torchperf-lint]\n')
    assert codes() == ""
    assert codes("--target-version", "py311") == message
    (tmp_path / "pyproject.toml").write_text('[tool.torchperf-lint]\ntarget-version = "py313"\n')
    assert codes() == ""
    assert codes("--config", 'target-version = "py311"') == message


@pytest.mark.parametrize(
    ("specifier", "target"),
    [(">=3.12", (3, 12)), (">=3.12,<4", (3, 12)), ("~=3.13", (3, 13)), (">=3.9", (3, 11)), ("<4", (3, 11))],
)
def test_requires_python_gives_the_lowest_lower_bound(specifier, target):
    assert python_versions.from_requires_python(specifier) == target


def test_a_bad_target_version_names_the_key_and_the_flag(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.torchperf-lint]\ntarget-version = "3.12"\n')
    (tmp_path / "k.py").write_text("import torch\n")
    command = [sys.executable, "-m", "torchperf_lint", "--no-cache", "k.py"]
    result = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path)
    assert (result.returncode, result.stderr) == (
        2,
        f"torchperf-lint: error: {tmp_path / 'pyproject.toml'}: `tool.torchperf-lint.target-version` must be one "
        'of "py311", "py312", "py313", "py314"\n',
    )
    flag = subprocess.run([*command, "--target-version", "py310"], capture_output=True, text=True, cwd=tmp_path)
    assert flag.returncode == 2
    assert "argument --target-version: must be one of py311, py312, py313, py314, not 'py310'" in flag.stderr
