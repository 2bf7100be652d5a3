"""Autofixes: edits carried on findings, and applying them to a file's text in one pass.

Rules describe an edit against CST nodes (:class:`NodeEdit`); the engine resolves node positions into
1-based (row, column) :class:`Edit` ranges; :func:`apply` splices them into the text.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # findings and their fixes are read back from the cache without LibCST
    import libcst as cst

    from torchperf_lint.diagnostics import Diagnostic

from torchperf_lint.lines import line_starts

SAFE, UNSAFE = "safe", "unsafe"


def is_fixable(finding: Diagnostic, unsafe: bool) -> bool:
    """Whether ``--fix`` applies this finding's fix (unsafe ones only with ``--unsafe-fixes``)."""
    return finding.fix is not None and (unsafe or finding.fix.applicability == SAFE)


@dataclass(frozen=True)
class Edit:
    """Replace the text from (row, column) up to (end_row, end_column) with ``content``; 1-based."""

    row: int
    column: int
    end_row: int
    end_column: int
    content: str

    def as_json(self) -> dict[str, object]:
        return {
            "content": self.content,
            "location": {"row": self.row, "column": self.column},
            "end_location": {"row": self.end_row, "column": self.end_column},
        }


@dataclass(frozen=True)
class Fix:
    """One finding's fix: all of its edits apply together or not at all."""

    applicability: str
    message: str
    edits: tuple[Edit, ...]

    def as_json(self) -> dict[str, object]:
        return {
            "applicability": self.applicability,
            "message": self.message,
            "edits": [e.as_json() for e in self.edits],
        }

    @classmethod
    def from_json(cls, data: dict) -> Fix:
        """The inverse of :meth:`as_json` (the cache stores fixes this way)."""
        return cls(data["applicability"], data["message"], tuple(_edit_from_json(e) for e in data["edits"]))


def _edit_from_json(data: dict) -> Edit:
    start, end = data["location"], data["end_location"]
    return Edit(start["row"], start["column"], end["row"], end["column"], data["content"])


@dataclass(frozen=True)
class NodeEdit:
    """A rule's edit: replace ``node`` with ``content``, or delete its whole lines (``whole_lines``)."""

    node: cst.CSTNode
    content: str = ""
    whole_lines: bool = False


@dataclass(frozen=True)
class PendingFix:
    applicability: str
    message: str
    edits: tuple[NodeEdit, ...]


def apply(text: str, fixes: Iterable[Fix]) -> tuple[str, list[Fix]]:
    """``text`` with every fix applied whose edits overlap no earlier fix's; and the fixes applied."""
    starts = line_starts(text)
    taken: list[tuple[int, int]] = []
    applied: list[Fix] = []
    spans: list[tuple[int, int, str]] = []
    for fix in fixes:
        ranges = [_span(starts, edit, text) for edit in fix.edits]
        if any(_overlaps(start, end, taken) for start, end, _ in ranges):
            continue
        taken += [(start, end) for start, end, _ in ranges]
        spans += ranges
        applied.append(fix)
    for start, end, content in sorted(spans, reverse=True):
        text = text[:start] + content + text[end:]
    return text, applied


def _span(starts: list[int], edit: Edit, text: str) -> tuple[int, int, str]:
    return (
        _offset(starts, edit.row, edit.column, text),
        _offset(starts, edit.end_row, edit.end_column, text),
        edit.content,
    )


def _offset(starts: list[int], row: int, column: int, text: str) -> int:
    if row > len(starts):
        return len(text)
    return min(starts[row - 1] + column - 1, len(text))


def _overlaps(start: int, end: int, taken: list[tuple[int, int]]) -> bool:
    return any(start < other_end and other_start < end or start == other_start for other_start, other_end in taken)
