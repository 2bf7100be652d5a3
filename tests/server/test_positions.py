"""Our 1-based code-point positions against LSP's 0-based ones, in each position encoding."""

from __future__ import annotations

import pytest
from lsprotocol import types

from torchperf_lint.server.positions import LineIndex

TEXT = "import torch\nx = '😀é'; y = x.cuda()\r\nlast"
UTF8, UTF16, UTF32 = (
    types.PositionEncodingKind.Utf8,
    types.PositionEncodingKind.Utf16,
    types.PositionEncodingKind.Utf32,
)


@pytest.mark.parametrize(("encoding", "character"), [(UTF16, 15), (UTF8, 18), (UTF32, 14)])
def test_a_column_after_a_wide_character_counts_the_client_s_units(encoding, character):
    index = LineIndex(TEXT, encoding)
    assert index.position(2, 15) == types.Position(1, character)  # `x.cuda()` starts at code point 15
    assert index.offset(types.Position(1, character)) == TEXT.index("x.cuda")


def test_positions_past_a_line_or_the_text_clamp_to_what_exists():
    index = LineIndex(TEXT)
    assert index.position(1, 99) == types.Position(0, 12)  # never onto the next line
    assert index.position(9, 1) == index.end() == types.Position(2, 4)
    assert index.offset(types.Position(0, 99)) == 12
    assert index.offset(types.Position(9, 0)) == len(TEXT)


def test_lines_end_at_newlines_only_and_a_final_newline_opens_an_empty_line():
    index = LineIndex("a\x0cb\r\nc\rd\n")
    assert [index.line(i) for i in range(4)] == ["a\x0cb", "c", "d", ""]
    assert index.position(3, 1) == types.Position(2, 0)
    assert index.line_start(4) == index.end() == types.Position(3, 0)


def test_a_byte_order_mark_shifts_the_first_row_only():
    index = LineIndex("\ufeffx = 1\ny = 2\n")
    assert index.position(1, 1) == types.Position(0, 1)  # the engine's column 1 is after the mark
    assert index.position(2, 1) == types.Position(1, 0)


def test_a_position_inside_a_surrogate_pair_rounds_to_the_next_character():
    index = LineIndex("'😀x'")
    assert index.offset(types.Position(0, 2)) == 2
    assert index.offset(types.Position(0, 3)) == 2
