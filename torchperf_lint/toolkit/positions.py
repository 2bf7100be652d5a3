"""Node positions as LibCST's ``PositionProvider`` defines them, generated for as little code as possible.

Positions come from code generation, which costs about as much as the parse. Findings are rare, so
the :class:`Locator` generates only the statement that holds a finding: CPython's ``ast`` (already
built by the engine's syntax check) gives that statement's first line, and the generated text is
compared with the source at that line before its spans are trusted. Anything it cannot place that
way falls back to one pass over the whole module.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

import libcst as cst
from libcst.metadata.position_provider import PositionProvidingCodegenState

_NEWLINE = re.compile(r"\r\n?|\n")
Span = tuple[tuple[int, int], tuple[int, int]]  # ((line, column), (end_line, end_column)); 1-based lines
#: Statements whose indented body the locator descends into to find a smaller statement to generate.
_DESCEND = (cst.FunctionDef, cst.ClassDef)


def positions(module: cst.Module) -> dict[cst.CSTNode, Span]:
    """Every node's syntactic span, as LibCST's ``PositionProvider`` defines it, in one codegen pass.

    Equivalent to resolving ``PositionProvider`` through a ``MetadataWrapper`` (the tests pin the
    columns), without the wrapper's extra traversal or an object per node.
    """
    holder = _Spans()
    module._codegen(
        _SpanState(default_indent=module.default_indent, default_newline=module.default_newline, provider=holder)
    )
    return holder._computed


class Locator:
    """Spans of one module's nodes, generating one statement at a time where it can."""

    def __init__(self, module: cst.Module, text: str, syntax_tree: ast.Module | None) -> None:
        self.module = module
        self.text = text
        self.syntax_tree = syntax_tree
        self._spans: dict[cst.CSTNode, Span] = {}
        self._generated: set[int] = set()
        self._whole_module = False
        self._line_starts: list[int] | None = None
        self._indexes: dict[int, dict[int, int]] = {}

    def span(self, node: cst.CSTNode, path: Sequence[cst.CSTNode] = ()) -> Span:
        """The span of ``node``; ``path`` (module first, as the traversal's ancestors) narrows the work."""
        found = self._spans.get(node)
        if found is None and path and self.syntax_tree is not None:
            self._generate_statement(path)
            found = self._spans.get(node)
        if found is None and not self._whole_module:
            self._spans.update(positions(self.module))
            self._whole_module = True
            found = self._spans.get(node)
        if found is None:
            raise KeyError(f"{type(node).__name__} node is not part of the module")
        return found

    def def_line(self, path: Sequence[cst.CSTNode]) -> int | None:
        """The line of the ``def`` or ``class`` keyword (after any decorators) of the last node on
        ``path``, read from CPython's ``ast`` without generating code; None when that node is not a
        function or class the ``ast`` places (one nested in an ``if``, say)."""
        placed = self._innermost_statement(path) if self.syntax_tree is not None else None
        if placed is None or placed[0] is not path[-1]:
            return None
        statement, counterpart = placed[0], placed[3]
        expected = (
            (ast.ClassDef,) if isinstance(statement, cst.ClassDef) else (ast.FunctionDef, ast.AsyncFunctionDef)
        )
        if not isinstance(statement, cst.FunctionDef | cst.ClassDef) or not isinstance(counterpart, expected):
            return None
        return counterpart.lineno

    def _generate_statement(self, path: Sequence[cst.CSTNode]) -> None:
        placed = self._innermost_statement(path)
        if placed is None or id(placed[0]) in self._generated:
            return
        statement, indents, first_line, _ = placed
        self._generated.add(id(statement))
        holder = _Spans()
        state = _SpanState(
            default_indent=self.module.default_indent,
            default_newline=self.module.default_newline,
            provider=holder,
            indent_tokens=list(indents),
        )
        state.line = first_line
        statement._codegen(state)
        if self._matches_source("".join(state.tokens), first_line):
            self._spans.update(holder._computed)

    def _innermost_statement(
        self, path: Sequence[cst.CSTNode]
    ) -> tuple[cst.CSTNode, list[str], int, ast.stmt] | None:
        """The deepest statement on ``path`` reachable through ``def``/``class`` bodies, the indents
        around it, the line its leading blank lines and comments start on, and its ``ast`` twin."""
        assert self.syntax_tree is not None
        body: Sequence[cst.BaseStatement] = self.module.body
        syntax_body: list[ast.stmt] = self.syntax_tree.body
        indents: list[str] = []
        placed = None
        index = 1
        while index < len(path):
            statement = path[index]
            position = self._indexes_of(body).get(id(statement))
            if position is None or position >= len(syntax_body):
                break
            counterpart = syntax_body[position]
            first_line = _first_line(counterpart) - len(statement.leading_lines)  # type: ignore[attr-defined]
            placed = (statement, list(indents), first_line, counterpart)
            block = getattr(statement, "body", None)
            if not isinstance(statement, _DESCEND) or not isinstance(block, cst.IndentedBlock):
                break
            if index + 2 >= len(path) or path[index + 1] is not block:
                break
            indents.append(self.module.default_indent if block.indent is None else block.indent)
            body, syntax_body = block.body, counterpart.body  # type: ignore[attr-defined]
            index += 2
        return placed

    def _indexes_of(self, body: Sequence[cst.BaseStatement]) -> dict[int, int]:
        """Computed once per body: a module with thousands of findings must not rescan it for each."""
        found = self._indexes.get(id(body))
        if found is None:
            found = self._indexes[id(body)] = _ast_indexes(body)
        return found

    def _matches_source(self, code: str, first_line: int) -> bool:
        if self._line_starts is None:
            self._line_starts = [0, *(match.end() for match in _NEWLINE.finditer(self.text))]
        if not 0 < first_line <= len(self._line_starts):
            return False
        start = self._line_starts[first_line - 1]
        return self.text.startswith(code, start)


def _ast_indexes(body: Sequence[cst.BaseStatement]) -> dict[int, int]:
    """Where each statement of a LibCST body starts in the ``ast`` body (``a; b`` is one LibCST line,
    two ``ast`` statements), by the statement's ``id``."""
    indexes, position = {}, 0
    for statement in body:
        indexes[id(statement)] = position
        position += len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
    return indexes


def _first_line(statement: ast.stmt) -> int:
    decorators = getattr(statement, "decorator_list", ())
    return min([statement.lineno, *(decorator.lineno for decorator in decorators)])


class _Spans:
    """Stands in for the metadata provider the codegen state writes into."""

    def __init__(self) -> None:
        self._computed: dict[cst.CSTNode, Span] = {}


class _SpanState(PositionProvidingCodegenState):
    """LibCST's position-tracking codegen state, storing tuples and skipping regexes where it can."""

    def _update_position(self, value: str) -> None:
        if "\n" not in value and "\r" not in value:
            self.column += len(value)
            return
        segments = _NEWLINE.split(value)
        self.line += len(segments) - 1
        self.column = len(segments[-1])

    def before_codegen(self, node: cst.CSTNode) -> None:
        self._stack.append((self.line, self.column))

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self._stack.pop()
        computed = self.provider._computed
        if node not in computed:
            computed[node] = (start, (self.line, self.column))

    def record_syntactic_position(
        self, node: cst.CSTNode, *, start_node: cst.CSTNode | None = None, end_node: cst.CSTNode | None = None
    ) -> _Syntactic:
        return _Syntactic(self, node, start_node, end_node)


class _Syntactic:
    """``record_syntactic_position`` as a plain context manager (the generator one costs more)."""

    __slots__ = ("state", "node", "start_node", "end_node", "start")

    def __init__(
        self, state: _SpanState, node: cst.CSTNode, start_node: cst.CSTNode | None, end_node: cst.CSTNode | None
    ) -> None:
        self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node

    def __enter__(self) -> None:
        self.start = (self.state.line, self.state.column)

    def __exit__(self, *exc_info: object) -> bool:
        computed = self.state.provider._computed
        start = computed[self.start_node][0] if self.start_node is not None else self.start
        end = computed[self.end_node][1] if self.end_node is not None else (self.state.line, self.state.column)
        computed[self.node] = (start, end)
        return False
