"""Fixing one file: apply fixes, lint again, repeat until stable; write atomically or not at all.

A round whose result does not parse is discarded, so ``--fix`` can leave a file unfixed but never
broken, and the replace-by-rename write means an interrupted run leaves the old file or the new one.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import libcst as cst

from torchperf_lint import fixes
from torchperf_lint.diagnostics import Diagnostic
from torchperf_lint.fixes import is_fixable

#: Each round applies every non-overlapping fix; overlapping ones wait for the next round.
MAX_ROUNDS = 10


@dataclass(frozen=True)
class FixOutcome:
    text: str
    applied: list[Diagnostic]  # findings whose fix went in, at their original positions
    remaining: list[Diagnostic]  # findings of the fixed text


def fix_text(
    text: str, findings: list[Diagnostic], relint: Callable[[str], list[Diagnostic]], unsafe: bool
) -> FixOutcome:
    """``text`` with its fixable findings fixed, re-linting after each round."""
    applied: list[Diagnostic] = []
    for _ in range(MAX_ROUNDS):
        fixable = [f for f in findings if is_fixable(f, unsafe)]
        if not fixable:
            break
        candidate, used = fixes.apply(text, [f.fix for f in fixable if f.fix is not None])
        if not used or candidate == text or not parses(candidate):
            break
        applied += [f for f in fixable if any(f.fix is fix for fix in used)]
        text, findings = candidate, relint(candidate)
    return FixOutcome(text, applied, findings)


def fix_one(text: str, finding: Diagnostic) -> str | None:
    """``text`` with ``finding``'s fix alone applied (an editor's quick fix), or None when it has none
    or the result would not parse, the test every ``--fix`` round passes."""
    if finding.fix is None:
        return None
    candidate, used = fixes.apply(text, [finding.fix])
    return candidate if used and candidate != text and parses(candidate) else None


def parses(text: str) -> bool:
    """Whether LibCST parses ``text``: the test every rewrite passes before it is written (the
    linter lints what LibCST parses, newer syntax included)."""
    try:
        cst.parse_module(text)
    except (cst.ParserSyntaxError, RecursionError):
        return False
    return True


def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path``'s content (through symlinks, keeping its mode) by rename, never in place."""
    target = path.resolve()
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, target.stat().st_mode & 0o7777)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
