"""The file rewrites the CLI performs: ``--fix``, ``--diff`` and ``--add-noqa``.

Every write is atomic (see :func:`torchperf_lint.autofix.write_atomically`) and keeps the file's
encoding, BOM and line endings; nothing is written for ``--diff`` or for standard input.
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from torchperf_lint.autofix import fix_text, parses, write_atomically
from torchperf_lint.diagnostics import Diagnostic
from torchperf_lint.engine import SYNTAX_ERROR, lint_bytes
from torchperf_lint.fixes import is_fixable
from torchperf_lint.lines import split_lines
from torchperf_lint.runner import Job
from torchperf_lint.source import decode, encoding_of
from torchperf_lint.suppression import UNUSED_NOQA, add_directives


@dataclass(frozen=True)
class Rewrite:
    """One file's text before and after, with the findings fixed and those left."""

    job: Job
    before: str
    after: str
    encoding: str
    applied: list[Diagnostic]
    remaining: list[Diagnostic]

    def diff(self) -> str:
        return "".join(
            difflib.unified_diff(
                split_lines(self.before, keepends=True),
                split_lines(self.after, keepends=True),
                fromfile=f"a/{self.job.display}",
                tofile=f"b/{self.job.display}",
            )
        )

    def write(self) -> None:
        """Replace the file (standard input is echoed by the CLI instead)."""
        if self.job.data is None and self.after != self.before:
            write_atomically(self.job.path, self.after.encode(self.encoding))


def fix_jobs(jobs: list[Job], findings: list[Diagnostic], *, unsafe: bool, ignore_noqa: bool) -> list[Rewrite]:
    """The fixed text of every file that has a fixable finding (nothing is written here)."""
    by_path = _by_path(findings)
    rewrites = []
    for job in jobs:
        mine = by_path.get(job.display, [])
        if not any(is_fixable(f, unsafe) for f in mine):
            continue
        data = job.data if job.data is not None else job.path.read_bytes()
        encoding, text = encoding_of(data), decode(data)
        outcome = fix_text(text, mine, _relinter(encoding, job, ignore_noqa), unsafe)
        rewrites.append(Rewrite(job, text, outcome.text, encoding, outcome.applied, outcome.remaining))
    return rewrites


def _relinter(encoding: str, job: Job, ignore_noqa: bool) -> Callable[[str], list[Diagnostic]]:
    """Lint fixed text as the file it will become (same encoding, same settings)."""
    return lambda text: lint_bytes(text.encode(encoding), job.settings, job.display, ignore_noqa=ignore_noqa)


def add_noqa(jobs: list[Job], findings: list[Diagnostic]) -> tuple[int, list[str]]:
    """Write ``# noqa`` directives for ``findings``; the count added and the files it had to skip."""
    rows: dict[str, dict[int, set[str]]] = defaultdict(lambda: defaultdict(set))
    for finding in findings:
        if takes_noqa(finding):
            rows[finding.path][finding.row].add(finding.code)
    added, skipped = 0, []
    for job in jobs:
        if job.display not in rows or job.data is not None:
            continue
        data = job.path.read_bytes()
        annotated = with_noqa(decode(data), rows[job.display])
        if annotated is None:
            skipped.append(job.display)
            continue
        new_text, count = annotated
        write_atomically(job.path, new_text.encode(encoding_of(data)))
        added += count
    return added, skipped


def takes_noqa(finding: Diagnostic) -> bool:
    """Whether a directive can silence ``finding``: a file that does not parse has no directives,
    and an unused directive is fixed by deleting it, not by another one."""
    return finding.code not in (SYNTAX_ERROR, UNUSED_NOQA)


def with_noqa(text: str, codes_by_row: dict[int, set[str]]) -> tuple[str, int] | None:
    """``text`` with ``# noqa`` directives for ``codes_by_row`` and how many lines took one; None when
    no directive could be added, or the result would not parse."""
    new_text, count = add_directives(text, codes_by_row)
    return (new_text, count) if count and parses(new_text) else None


def _by_path(findings: list[Diagnostic]) -> dict[str, list[Diagnostic]]:
    grouped: dict[str, list[Diagnostic]] = defaultdict(list)
    for finding in findings:
        grouped[finding.path].append(finding)
    return grouped
