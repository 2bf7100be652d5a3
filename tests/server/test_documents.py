"""The server's copy of each open document, changed as the client changes its own."""

from __future__ import annotations

from lsprotocol import types

from torchperf_lint.server.actions import replacement
from torchperf_lint.server.documents import Document
from torchperf_lint.server.positions import LineIndex


def change(line: int, character: int, end_line: int, end_character: int, text: str):
    where = types.Range(types.Position(line, character), types.Position(end_line, end_character))
    return types.TextDocumentContentChangePartial(range=where, text=text)


def test_incremental_changes_apply_in_order_with_lines_ending_at_newlines_only():
    document = Document("file:///k.py", "python", 1, "a\x0cb = 1\r\ny = '😀'.cuda()\n")
    document.apply([change(1, 8, 1, 15, ""), change(0, 0, 0, 1, "A")], 2, types.PositionEncodingKind.Utf16)
    assert (document.text, document.version) == ("A\x0cb = 1\r\ny = '😀'\n", 2)
    document.apply([types.TextDocumentContentChangeWholeDocument("new\n")], 3, types.PositionEncodingKind.Utf16)
    assert document.text == "new\n"


def test_which_documents_are_python_and_what_they_stand_for():
    assert Document("file:///w/k.py", "python", 1, "").is_python
    assert Document("file:///w/k.pyi", "", 1, "").is_python
    assert not Document("file:///w/pyproject.toml", "toml", 1, "").is_python
    assert not Document("file:///w/k.py", "cython", 1, "").is_python
    assert not Document("git:/w/k.py?ref=HEAD", "python", 1, "").is_python  # a diff view's copy
    assert str(Document("file:///w/a%20b.py", "python", 1, "").path) == "/w/a b.py"
    untitled = Document("untitled:Untitled-1", "python", 1, "")
    assert (untitled.path, untitled.name) == (None, "Untitled-1")


def test_replacement_spans_the_changed_lines_only():
    before = "import torch\n\n\n@torch.compile\ndef f(x):\n    return x\n"
    edit = replacement(LineIndex(before), before.replace("@torch.compile\n", ""))
    assert (edit.range.start, edit.range.end, edit.new_text) == (types.Position(3, 0), types.Position(4, 0), "")
    edit = replacement(LineIndex("a\nb"), "a\nc")  # no final newline: the range ends at the text's end
    assert (edit.range.start, edit.range.end, edit.new_text) == (types.Position(1, 0), types.Position(1, 1), "c")
    edit = replacement(LineIndex("x = 1\n"), "x = 1  # noqa: TPL003\n")
    assert (edit.range.start, edit.range.end, edit.new_text) == (
        types.Position(0, 0),
        types.Position(1, 0),
        "x = 1  # noqa: TPL003\n",
    )
