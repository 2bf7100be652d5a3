"""Hover over a finding: the rule's page, as ``torchperf-lint rule CODE`` prints it."""

from __future__ import annotations

from lsprotocol import types

from torchperf_lint.explain import rule_markdown
from torchperf_lint.registry import all_rules
from torchperf_lint.server.diagnostics import finding_range
from torchperf_lint.server.linting import Outcome
from torchperf_lint.server.positions import LineIndex

_BETWEEN_PAGES = "\n---\n\n"


def hover(outcome: Outcome, index: LineIndex, position: types.Position, markdown: bool) -> types.Hover | None:
    """The page of every rule with a finding under ``position`` (each once), or None."""
    rules = all_rules()
    pages: dict[str, str] = {}
    first: types.Range | None = None
    for finding in outcome.findings:
        where = finding_range(finding, index)
        if _contains(where, position) and finding.code in rules:
            first = first or where
            pages.setdefault(finding.code, rule_markdown(rules[finding.code]))
    if first is None:
        return None
    kind = types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText
    return types.Hover(
        contents=types.MarkupContent(kind=kind, value=_BETWEEN_PAGES.join(pages.values())), range=first
    )


def _contains(where: types.Range, position: types.Position) -> bool:
    point = (position.line, position.character)
    return (where.start.line, where.start.character) <= point <= (where.end.line, where.end.character)
