"""Hover over a finding: the rule's page, as ``torchperf-lint rule CODE`` prints it (Markdown), or
as plain text for a client that shows no Markdown."""

from __future__ import annotations

import re

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
    text = _BETWEEN_PAGES.join(pages.values())
    if markdown:
        contents = types.MarkupContent(kind=types.MarkupKind.Markdown, value=text)
    else:
        contents = types.MarkupContent(kind=types.MarkupKind.PlainText, value=plain_text(text))
    return types.Hover(contents=contents, range=first)


_HEADING = re.compile(r"(#{1,6}) (.*)")
_FENCE = "```"
_LINK = re.compile(r"\[([^\]\n]+)\]\(([^)\s]+)\)")


def plain_text(markdown: str) -> str:
    """A rule page's Markdown as text to read as it is: headings underlined, code blocks indented
    without their fences, links as ``text (address)``. Inline code keeps its backticks, which read
    as quotes in plain text (``!=`` alone in a list of operators would not)."""
    lines, in_code = [], False
    for line in markdown.split("\n"):
        if line.startswith(_FENCE):
            in_code = not in_code
            continue
        if in_code:
            lines.append(f"    {line}" if line else "")
            continue
        heading = _HEADING.fullmatch(line)
        if heading:
            title = _inline(heading.group(2))
            lines += [title, ("=" if len(heading.group(1)) == 1 else "-") * len(title)]
            continue
        lines.append(_inline(line))
    return "\n".join(lines)


def _inline(line: str) -> str:
    return _LINK.sub(r"\1 (\2)", line)


def _contains(where: types.Range, position: types.Position) -> bool:
    point = (position.line, position.character)
    return (where.start.line, where.start.character) <= point <= (where.end.line, where.end.character)
