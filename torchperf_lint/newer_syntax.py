"""Syntax a file uses that its target Python lacks, found in the LibCST tree and worded as Ruff words it.

LibCST parses the grammar of every Python version it knows; CPython parses only its own. So the engine
lints what LibCST parses and reports each construct newer than the target version, as Ruff does
("Cannot use `type` alias statement on Python 3.11 (syntax was added in Python 3.12)"), instead of
losing the whole file to the running interpreter's syntax error.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst

from torchperf_lint.python_versions import Version, dotted
from torchperf_lint.toolkit.positions import source_positions
from torchperf_lint.toolkit.traversal import children

#: (node, what, the version that added it, characters from the node's start to the spot)
Candidate = tuple[cst.CSTNode, str, Version, int]
_PEP_701: Version = (3, 12)  # quotes, backslashes and comments inside f-string replacement fields
_REUSED_QUOTE = "Cannot reuse outer quote character in f-strings"
_BACKSLASH = "Cannot use an escape sequence (backslash) in f-strings"


@dataclass(frozen=True, order=True)
class Use:
    """One use of newer syntax: where (1-based row and code-point column), what, and since when."""

    row: int
    column: int
    what: str
    added: Version

    def message(self, target: Version) -> str:
        return f"{self.what} on Python {dotted(target)} (syntax was added in Python {dotted(self.added)})"


def uses(module: cst.Module, text: str) -> list[Use]:
    """Every construct of ``module`` (parsed from ``text``) that Python 3.11 cannot parse, sorted."""
    found = list(_candidates(module))
    if not found:
        return []
    spans = source_positions(module, text)
    results = set()
    for node, what, added, offset in found:
        (row, column), _ = spans[node]
        if offset:
            row, column = _advance(module.code_for_node(node), offset, row, column)
        results.add(Use(row, column + 1, what, added))
    return sorted(results)


def _candidates(module: cst.Module) -> Iterator[Candidate]:
    """Every :data:`Candidate` in ``module``, walked without recursion (deep trees cost no stack)."""
    pending: list[cst.CSTNode] = [module]
    while pending:
        node = pending.pop()
        yield from _checks(module, node)
        pending.extend(children(node))


def _checks(module: cst.Module, node: cst.CSTNode) -> Iterator[Candidate]:
    if isinstance(node, cst.TypeAlias):
        yield node, "Cannot use `type` alias statement", (3, 12), 0
    elif isinstance(node, cst.FunctionDef | cst.ClassDef) and node.type_parameters is not None:
        yield node.type_parameters, "Cannot use type parameter lists", (3, 12), 0
    elif isinstance(node, cst.TypeParam) and node.default is not None and isinstance(node.equal, cst.AssignEqual):
        yield node.equal, "Cannot set default type for a type parameter", (3, 13), 0
    elif isinstance(node, cst.ExceptHandler | cst.ExceptStarHandler):
        if isinstance(node.type, cst.Tuple) and not node.type.lpar:
            yield node.type, "Multiple exception types must be parenthesized", (3, 14), 0
    elif isinstance(node, cst.TemplatedString):
        yield node, "Cannot use t-strings", (3, 14), 0
    elif isinstance(node, cst.FormattedString):
        yield from _fstring_checks(module, node)


def _fstring_checks(module: cst.Module, node: cst.FormattedString) -> Iterator[Candidate]:
    """Before Python 3.12 a replacement field could hold neither the f-string's own quote, nor a
    backslash, nor a comment. The first of each per field is reported."""
    for part in node.parts:
        if not isinstance(part, cst.FormattedStringExpression):
            continue
        code = module.code_for_node(part)
        for needle, what in ((node.end, _REUSED_QUOTE), ("\\", _BACKSLASH)):
            if needle in code:
                yield part, what, _PEP_701, code.index(needle)
        comment = next(_comments(part), None)
        if comment is not None:
            yield comment, "Cannot use comments in f-strings", _PEP_701, 0


def _comments(node: cst.CSTNode) -> Iterator[cst.Comment]:
    """The comments under ``node``, in source order (the fast walker skips layout nodes: not here)."""
    pending = [node]
    while pending:
        node = pending.pop()
        if isinstance(node, cst.Comment):
            yield node
        pending.extend(reversed(node.children))


def _advance(code: str, offset: int, row: int, column: int) -> tuple[int, int]:
    """The 0-based position ``offset`` characters into ``code``, which starts at (row, column)."""
    before = code[:offset]
    lines = re.split(r"\r\n?|\n", before)
    if len(lines) == 1:
        return row, column + offset
    return row + len(lines) - 1, len(lines[-1])
