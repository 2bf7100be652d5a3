"""Baseline mode: report only the findings that a git revision did not already have.

Adopting the linter on existing code, or reviewing a change, needs the findings a change introduced,
not the ones it inherited. Each file's version at the revision is read through git (no checkout),
linted under the file's own name so its configuration and module name apply, and every current
finding is matched against the base ones by rule code and the text of its line. Line numbers are not
compared, so a finding whose line only moved stays matched; a finding whose line changed is new.
Each base finding matches at most one current finding, so a pattern copied to a second line is new.
"""

from __future__ import annotations

import subprocess
from collections import Counter
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path

from torchperf_lint.diagnostics import Diagnostic
from torchperf_lint.lines import split_lines
from torchperf_lint.runner import Job
from torchperf_lint.source import decode_or_raw

#: Lints one job's base version (its bytes at the revision) with the job's own options.
LintBase = Callable[[Job, bytes], list[Diagnostic]]


class BaselineError(Exception):
    """The revision or a file's repository cannot be read through git."""


def only_new(
    findings: Iterable[Diagnostic], jobs: Iterable[Job], revision: str, lint_base: LintBase
) -> list[Diagnostic]:
    """The findings not already present at ``revision``, in their original order."""
    by_path: dict[str, list[Diagnostic]] = {}
    for finding in findings:
        by_path.setdefault(finding.path, []).append(finding)
    kept: list[Diagnostic] = []
    for job in jobs:
        current = by_path.pop(job.display, [])
        if not current:
            continue
        base_data = base_version(job.path, revision)
        if base_data is None:
            kept += current
            continue
        base_keys = Counter(_keys(lint_base(job, base_data), base_data))
        current_data = job.data if job.data is not None else job.path.read_bytes()
        for finding, key in zip(current, _keys(current, current_data), strict=True):
            if base_keys[key] > 0:
                base_keys[key] -= 1
            else:
                kept.append(finding)
    for rest in by_path.values():  # findings of no job (there are none today) are never hidden
        kept += rest
    return sorted(kept)


def base_version(path: Path, revision: str) -> bytes | None:
    """The file's bytes at ``revision``, or None when it did not exist there."""
    top = _toplevel(path.resolve().parent)
    _verify(top, revision)
    relative = path.resolve().relative_to(top).as_posix()
    command = ["git", "-C", str(top), "cat-file", "blob", f"{revision}:{relative}"]
    shown = subprocess.run(command, capture_output=True)
    return shown.stdout if shown.returncode == 0 else None


def _keys(findings: list[Diagnostic], data: bytes) -> list[tuple[str, str]]:
    """(code, the finding's line with surrounding blanks removed) for each finding."""
    lines = split_lines(decode_or_raw(data))  # rows end where the linter's rows end, not at a form feed
    return [(f.code, lines[f.row - 1].strip() if 0 < f.row <= len(lines) else "") for f in findings]


@cache
def _toplevel(folder: Path) -> Path:
    try:
        found = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "--show-toplevel"], capture_output=True, text=True
        )
    except OSError as error:
        raise BaselineError(f"--baseline needs git: {error.strerror or error}") from None
    if found.returncode != 0:
        raise BaselineError(f"--baseline: {folder} is not inside a git repository")
    return Path(found.stdout.strip()).resolve()


@cache
def _verify(top: Path, revision: str) -> None:
    check = subprocess.run(
        ["git", "-C", str(top), "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"], capture_output=True
    )
    if check.returncode != 0:
        raise BaselineError(f"--baseline {revision}: not a commit in the repository at {top}")
