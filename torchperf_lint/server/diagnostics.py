"""Findings as LSP diagnostics: the command line's code, message, range and severity, plus the rule
page's link and the finding's fix (in the client's coordinates) in ``data``."""

from __future__ import annotations

from lsprotocol import types

from torchperf_lint.diagnostics import Diagnostic
from torchperf_lint.fixes import Fix
from torchperf_lint.server.positions import LineIndex
from torchperf_lint.suppression import UNUSED_NOQA

SOURCE = "torchperf-lint"


def to_lsp(finding: Diagnostic, index: LineIndex, pages: dict[str, str]) -> types.Diagnostic:
    """Every finding is an error, as the command line counts and reports it (SARIF ``error``,
    GitHub ``::error``); an unused ``noqa`` is also marked as unnecessary code, which editors fade."""
    page = pages.get(finding.code)
    return types.Diagnostic(
        range=finding_range(finding, index),
        message=finding.message,
        severity=types.DiagnosticSeverity.Error,
        code=finding.code,
        code_description=types.CodeDescription(href=page) if page else None,
        source=SOURCE,
        tags=[types.DiagnosticTag.Unnecessary] if finding.code == UNUSED_NOQA else None,
        data={"fix": _fix_data(finding.fix, index)} if finding.fix is not None else None,
    )


def finding_range(finding: Diagnostic, index: LineIndex) -> types.Range:
    return index.range(finding.row, finding.column, finding.end_row, finding.end_column)


def _fix_data(fix: Fix, index: LineIndex) -> dict[str, object]:
    return {
        "applicability": fix.applicability,
        "message": fix.message,
        "edits": [
            {
                "range": _plain(index.range(edit.row, edit.column, edit.end_row, edit.end_column)),
                "newText": edit.content,
            }
            for edit in fix.edits
        ],
    }


def _plain(where: types.Range) -> dict[str, dict[str, int]]:
    return {
        "start": {"line": where.start.line, "character": where.start.character},
        "end": {"line": where.end.line, "character": where.end.character},
    }
