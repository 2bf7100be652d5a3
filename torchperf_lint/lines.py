"""Lines as Python's tokenizer, LibCST and the Language Server Protocol count them.

A line ends at ``\\n``, ``\\r\\n`` or ``\\r``, nothing else. ``str.splitlines`` also breaks at form
feeds, vertical tabs and other separators, which Python source may hold inside a line; rows counted
that way drift away from the rows the parser reports, and an edit lands on the wrong line.
"""

from __future__ import annotations

import re

_LINE_END = re.compile(r"\r\n|\r|\n")


def split_lines(text: str, keepends: bool = False) -> list[str]:
    """``text``'s lines, like ``str.splitlines`` but ending only at ``\\n``, ``\\r\\n`` or ``\\r``."""
    lines, start = [], 0
    for match in _LINE_END.finditer(text):
        lines.append(text[start : match.end() if keepends else match.start()])
        start = match.end()
    if start < len(text):
        lines.append(text[start:])
    return lines


def line_starts(text: str) -> list[int]:
    """The offset at which each line starts; a text ending in a line break ends with an empty line
    (``"a\\n"`` has two lines, as an editor shows it)."""
    return [0, *(match.end() for match in _LINE_END.finditer(text))]
