"""Ruff-compatible JSON finding objects: a JSON list (``json``) or one object per line (``json-lines``)."""

import json
from pathlib import Path

from torchperf_lint.diagnostics import Diagnostic


def as_object(finding: Diagnostic) -> dict[str, object]:
    return {
        "cell": None,
        "code": finding.code,
        "end_location": {"column": finding.end_column, "row": finding.end_row},
        "filename": str(Path(finding.path).absolute()) if finding.path != "-" else "-",
        "fix": finding.fix.as_json() if finding.fix is not None else None,
        "location": {"column": finding.column, "row": finding.row},
        "message": finding.message,
        "noqa_row": finding.row,
        "url": None,
    }


def render(findings: list[Diagnostic]) -> str:
    return json.dumps([as_object(f) for f in findings], indent=2) + "\n"


def render_lines(findings: list[Diagnostic]) -> str:
    return "".join(json.dumps(as_object(f)) + "\n" for f in findings)
