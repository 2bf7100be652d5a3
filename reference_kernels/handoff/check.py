"""Check a handoff report for every required section, each with content."""

from __future__ import annotations

import re

from .render import SECTIONS


def missing_sections(report: str) -> list[str]:
    """Problems, one per required section that is absent or empty, in the required order."""
    bodies: dict[str, str] = {}
    for block in re.split(r"^## ", report, flags=re.MULTILINE)[1:]:
        heading, _, body = block.partition("\n")
        bodies[heading.strip().lower()] = body
    problems = []
    for section in SECTIONS:
        body = bodies.get(section.lower())
        if body is None:
            problems.append(f"missing section: {section}")
        elif not _has_content(body):
            problems.append(f"empty section: {section}")
    return problems


def _has_content(body: str) -> bool:
    """Anything besides blank lines and HTML comments (template placeholders) counts as content."""
    return bool(re.sub(r"<!--.*?-->", "", body, flags=re.DOTALL).strip())
