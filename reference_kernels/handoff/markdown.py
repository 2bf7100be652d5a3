"""The ``## `` sections of a handoff report or notes file, with the line numbers checks point at."""

from __future__ import annotations

import re
from dataclasses import dataclass

_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


@dataclass(frozen=True)
class Section:
    """One ``## Title`` block: its heading's 1-based line and the lines below it, each with its number."""

    title: str
    line: int
    body: tuple[tuple[int, str], ...]

    @property
    def text(self) -> str:
        return "\n".join(text for _, text in self.body)

    @property
    def has_content(self) -> bool:
        """Anything besides blank lines and HTML comments (template placeholders) counts as content."""
        return bool(_HTML_COMMENT.sub("", self.text).strip())

    def first_content_line(self) -> int:
        """The line of the first non-blank body line, or the heading's when the body is blank."""
        return next((number for number, text in self.body if text.strip()), self.line)

    def find(self, pattern: re.Pattern[str]) -> int | None:
        """The line of the first body line matching ``pattern``."""
        return next((number for number, text in self.body if pattern.search(text)), None)


def sections(text: str) -> dict[str, Section]:
    """Every ``## `` section of ``text`` keyed by its lower-cased title; a repeated title keeps the first."""
    found: dict[str, Section] = {}
    title, start, body = None, 0, []
    for number, line in enumerate([*text.splitlines(), "## "], start=1):
        if line.startswith("## "):
            if title is not None:
                found.setdefault(title.lower(), Section(title, start, tuple(body)))
            title, start, body = line[3:].strip(), number, []
        elif title is not None:
            body.append((number, line))
    return found
