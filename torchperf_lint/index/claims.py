"""What a docstring says about who validated a function's inputs.

Real kernel packages write it in prose, not in linter config: "Sample one prevalidated CPU ``CDHW``
volume", "Callers validate the input container, layout, dtype, device, and control data before this
low-level kernel", "volume: Prevalidated uint8 or float32 ``DHWC`` volume". A claim records the
sentence, its line, and its scope: which parameters it covers (all, or the one an ``Args:`` entry
names) and which properties (all, or those the sentence lists).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Wording that says the inputs arrive validated. The verb forms ("callers validate X, Y") list what
#: was validated; the adjective forms ("a prevalidated volume") cover every property.
_ADJECTIVE = re.compile(
    r"\b(?:caller[- ])?pre-?validated\b|\bcaller[- ]validated\b|\balready[- ]validated\b"
    r"|\bassumes?\s+(?:already\s+)?validated\s+(?:inputs?|arguments?|data)\b",
    re.IGNORECASE,
)
_VERB = re.compile(
    r"\b(?:the\s+)?callers?\s+(?:must\s+|should\s+|already\s+)?validates?\b"
    r"|\bcallers?\s+(?:owns?|handles?|performs?|(?:is|are)\s+responsible\s+for)\s+(?:the\s+)?validation\b"
    r"|\bvalidated\s+by\s+(?:the\s+|its\s+)?callers?\b",
    re.IGNORECASE,
)
_NEGATION = re.compile(r"\b(?:not|never|no|need\s+not|nor|without)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)
_ARGUMENT = re.compile(r"^\s{0,12}(\*{0,2}[A-Za-z_]\w*)\s*(?:\([^)]*\))?\s*:\s")
#: Where a docstring's units end: a sentence, a blank line, or a new ``name: ...`` entry of an ``Args:`` list.
_UNIT_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`])|\n\s*\n|\n(?=\s{0,12}\*{0,2}[A-Za-z_]\w*\s*(?:\([^)]*\))?\s*:\s)")

#: Docstring words for each property a check can test (see ``vocabulary.check_properties``).
_PROPERTY_WORDS = (
    ("container", r"containers?|types?|instances?|classe?s?"),
    ("shape", r"shapes?|ranks?|ndim|sizes?|dimensions?|dims?|spatial"),
    ("dtype", r"dtypes?|data\s+types?"),
    ("device", r"devices?|cpu"),
    ("layout", r"layouts?"),
    ("strides", r"strides?|contiguity|contiguous"),
    ("autograd", r"autograd|requires_grad|grad(?:ient)?s?"),
    ("value", r"control\s+data|parameters?|arguments?|values?|ranges?|options?|matri(?:x|ces)|kernels?"),
)
_PROPERTY_PATTERNS = tuple(
    (name, re.compile(rf"\b(?:{words})\b", re.IGNORECASE)) for name, words in _PROPERTY_WORDS
)
#: A layout check is usually a rank or shape test (``volume.ndim != 4``).
_IMPLIED = {"layout": ("shape",)}


@dataclass(frozen=True)
class Claim:
    """One sentence saying inputs arrive validated. ``params``/``properties`` None means all."""

    line: int
    text: str
    params: tuple[str, ...] | None
    properties: tuple[str, ...] | None


def claims_of(docstring: str, first_line: int, parameters: tuple[str, ...]) -> tuple[Claim, ...]:
    """Every claim in a function's docstring; ``first_line`` is the line the docstring starts on.

    "Callers validate ..." counts wherever it stands. The adjective ("a prevalidated volume") counts in
    the summary sentence, which says what the function takes, or in the entry of an ``Args:`` list
    for a parameter; elsewhere it usually describes something else ("the prevalidated kernels are
    applied in depth, height, width order")."""
    found: list[Claim] = []
    offset = 0
    for number, sentence in enumerate(_UNIT_END.split(docstring)):
        start = docstring.find(sentence, offset)
        offset = start + len(sentence)
        claim = _claim(sentence, parameters, summary=number == 0)
        if claim is not None:
            line = first_line + docstring.count("\n", 0, start + _leading_blank(sentence))
            found.append(Claim(line, " ".join(sentence.split())[:160], *claim))
    return tuple(found)


def _leading_blank(sentence: str) -> int:
    return len(sentence) - len(sentence.lstrip())


def _claim(
    sentence: str, parameters: tuple[str, ...], summary: bool
) -> tuple[tuple[str, ...] | None, tuple[str, ...] | None] | None:
    verb = _VERB.search(sentence)
    adjective = _ADJECTIVE.search(sentence)
    match = verb or adjective
    if match is None or _NEGATION.search(sentence[: match.start()]):
        return None
    argument = _ARGUMENT.match(sentence)
    if argument is not None and argument.group(1).lstrip("*") in parameters:
        return (argument.group(1).lstrip("*"),), None
    if verb is None:
        return (None, None) if summary else None
    # "Callers validate X, Y and Z" lists after the verb; "X and Y are validated by the caller", before it.
    active = verb.group(0).lower().rstrip().endswith(("validate", "validates", "validation"))
    listed = sentence[verb.end() :] if active else sentence
    properties: set[str] = set()
    for name, pattern in _PROPERTY_PATTERNS:
        if pattern.search(listed):
            properties.add(name)
            properties.update(_IMPLIED.get(name, ()))
    named = tuple(p for p in parameters if re.search(rf"(?<![\w.]){re.escape(p)}\b", listed))
    if named:
        properties.add("value")
    return None, (tuple(sorted(properties)) or None)
