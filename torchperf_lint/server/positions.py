"""The one place where our positions meet the client's.

The engine reports 1-based rows and 1-based columns counted in code points. LSP counts 0-based lines
and 0-based columns in the encoding the client and server agreed on at ``initialize``: UTF-16 code
units unless the client offered UTF-8 or UTF-32. A character outside the Basic Multilingual Plane is
one code point but two UTF-16 units, so the two disagree on any line that holds an emoji or a rare
CJK character, and this module is where the difference is made up.
"""

from __future__ import annotations

from collections.abc import Callable

from lsprotocol import types

from torchperf_lint.lines import line_starts

_LINE_BREAK = "\r\n"
_BOM = "\ufeff"


def _utf16_units(text: str) -> int:
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def _utf8_units(text: str) -> int:
    return len(text.encode("utf-8", errors="surrogatepass"))


_UNITS: dict[str, Callable[[str], int]] = {
    types.PositionEncodingKind.Utf16: _utf16_units,
    types.PositionEncodingKind.Utf8: _utf8_units,
    types.PositionEncodingKind.Utf32: len,
}


class LineIndex:
    """One version of a document's text, for converting positions both ways.

    The engine never sees a leading byte-order mark (it decodes as Python does), so a buffer that
    holds one has its first row's columns shifted by one here.
    """

    def __init__(self, text: str, encoding: str = types.PositionEncodingKind.Utf16) -> None:
        self.text = text
        self._starts = line_starts(text)
        self._units = _UNITS.get(encoding, _utf16_units)
        self._bom = 1 if text.startswith(_BOM) else 0

    def line(self, index: int) -> str:
        """Line ``index`` (0-based) without its line break; empty past the end."""
        if not 0 <= index < len(self._starts):
            return ""
        end = self._starts[index + 1] if index + 1 < len(self._starts) else len(self.text)
        return self.text[self._starts[index] : end].rstrip(_LINE_BREAK)

    def position(self, row: int, column: int) -> types.Position:
        """The client's position for our 1-based (row, code-point column); past the end of a line
        or of the text, the nearest position that exists."""
        if row > len(self._starts):
            return self.end()
        index = max(row - 1, 0)
        line = self.line(index)
        points = min(max(column - 1, 0) + (self._bom if index == 0 else 0), len(line))
        prefix = line[:points]
        return types.Position(index, len(prefix) if prefix.isascii() else self._units(prefix))

    def range(self, row: int, column: int, end_row: int, end_column: int) -> types.Range:
        return types.Range(self.position(row, column), self.position(end_row, end_column))

    def end(self) -> types.Position:
        last = len(self._starts) - 1
        return types.Position(last, self._units(self.line(last)))

    def offset(self, position: types.Position) -> int:
        """The index into the text of the client's ``position`` (clamped to its line, as LSP asks)."""
        if position.line >= len(self._starts):
            return len(self.text)
        line = self.line(position.line)
        return self._starts[position.line] + self._code_points(line, position.character)

    def line_start(self, index: int) -> types.Position:
        """The start of line ``index`` (0-based), or the end of the text past its last line."""
        return types.Position(index, 0) if index < len(self._starts) else self.end()

    def _code_points(self, line: str, units: int) -> int:
        if line.isascii():
            return min(units, len(line))
        counted = 0
        for index, char in enumerate(line):
            if counted >= units:
                return index
            counted += self._units(char)
        return len(line)
