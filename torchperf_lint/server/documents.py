"""The documents the editor has open: their text as the editor holds it, version by version.

The server keeps the only copy. Incremental changes are applied with lines ending at ``\\n``,
``\\r\\n`` or ``\\r``, as the client counts them (pygls' own copy splits lines as ``str.splitlines``
does, which breaks at form feeds too and would apply an edit after one to the wrong line).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.uris import to_fs_path

from torchperf_lint.server.positions import LineIndex

_PYTHON_SUFFIXES = (".py", ".pyi")
#: A file, or a buffer not saved yet; not the copies editors show in diff views (``git:`` and such).
_LINTED_SCHEMES = ("file", "untitled")


@dataclass
class Document:
    uri: str
    language_id: str
    version: int
    text: str

    @property
    def path(self) -> Path | None:
        """The file the document stands for; None for an unsaved, untitled buffer."""
        if urlparse(self.uri).scheme != "file":
            return None
        found = to_fs_path(self.uri)
        return Path(found) if found else None

    @property
    def name(self) -> str:
        """The last part of the URI (an untitled buffer's only name)."""
        return PurePosixPath(unquote(urlparse(self.uri).path)).name or "untitled.py"

    @property
    def is_python(self) -> bool:
        """Python source (by the editor's language id, or by its name when the id says nothing) in a
        file or an untitled buffer: the documents the server lints."""
        if urlparse(self.uri).scheme not in _LINTED_SCHEMES:
            return False
        if self.language_id == "python":
            return True
        return self.language_id in ("", "plaintext") and self.name.endswith(_PYTHON_SUFFIXES)

    def apply(self, changes: list[types.TextDocumentContentChangeEvent], version: int, encoding: str) -> None:
        """Apply the client's changes in order; each range refers to the text the previous one left."""
        for change in changes:
            if isinstance(change, types.TextDocumentContentChangePartial):
                index = LineIndex(self.text, encoding)
                start, end = index.offset(change.range.start), index.offset(change.range.end)
                self.text = self.text[:start] + change.text + self.text[end:]
            else:
                self.text = change.text
        self.version = version


class Documents:
    """Open documents by URI."""

    def __init__(self) -> None:
        self._open: dict[str, Document] = {}

    def open(self, item: types.TextDocumentItem) -> Document:
        document = Document(item.uri, item.language_id, item.version, item.text)
        self._open[item.uri] = document
        return document

    def get(self, uri: str) -> Document | None:
        return self._open.get(uri)

    def close(self, uri: str) -> Document | None:
        return self._open.pop(uri, None)

    def python(self) -> list[Document]:
        return [document for document in self._open.values() if document.is_python]
