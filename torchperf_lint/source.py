"""Source bytes to text as Python reads them (PEP 263), without LibCST, so reporting can use it."""

from __future__ import annotations

import io
import tokenize


def encoding_of(data: bytes) -> str:
    """The source encoding per PEP 263: coding cookie or BOM (``utf-8-sig``), UTF-8 by default."""
    return tokenize.detect_encoding(io.BytesIO(data).readline)[0]


def decode(data: bytes) -> str:
    """Source text per PEP 263, without a BOM (``text.encode(encoding_of(data))`` restores it)."""
    text = data.decode(encoding_of(data))
    return text[1:] if text.startswith("\ufeff") else text


def decode_or_raw(data: bytes) -> str:
    """Source text per PEP 263, or, for bytes that do not decode, UTF-8 with the bad bytes kept as
    surrogates: text to show or compare line by line, never to parse."""
    try:
        return decode(data)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return data.decode("utf-8", errors="surrogateescape")
