"""Node positions as LibCST's ``PositionProvider`` defines them, generated for as little code as possible.

Positions come from code generation, which costs about as much as the parse. Findings are rare, so
the :class:`Locator` generates only the statement that holds a finding and finds that text in the
source: where it occurs once, at the start of a line, that is the statement's first line. Where it
occurs more than once (or a file has many findings), CPython's ``ast`` gives the first line instead,
and the generated text is compared with the source at that line before its spans are trusted.
Anything it cannot place either way falls back to one pass over the whole module.

LibCST does not give every source back: a form feed in a line's indentation (CPython resets the
indentation count at one) is dropped from the tree, so the generated code is one or more characters
short on that line. Spans are code-point columns of the *source*, so the whole-module pass compares
its generated text with the source and moves the columns of any line that differs (see
:func:`realign`).
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from difflib import SequenceMatcher

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
    return _generate(module)[0]


def source_positions(module: cst.Module, text: str) -> dict[cst.CSTNode, Span]:
    """Every node's span in ``text``, the source ``module`` was parsed from: :func:`positions`, with
    the columns of lines LibCST did not give back as written moved to where they are in ``text``."""
    spans, code = _generate(module)
    return spans if code == text else realign(spans, code, text)


def _generate(module: cst.Module) -> tuple[dict[cst.CSTNode, Span], str]:
    holder = _Spans()
    state = _SpanState(
        default_indent=module.default_indent, default_newline=module.default_newline, provider=holder
    )
    module._codegen(state)
    return holder._computed, "".join(state.tokens)


def realign(spans: dict[cst.CSTNode, Span], code: str, text: str) -> dict[cst.CSTNode, Span]:
    """``spans`` of the generated ``code`` as spans of the source ``text`` it came from.

    Only columns move: LibCST keeps every line break, so rows agree. Lines are matched character by
    character where they differ; a span's start takes the column of its first character, its end
    the column after its last one. Spans are returned unchanged when the line counts differ.
    """
    generated, source = _NEWLINE.split(code), _NEWLINE.split(text)
    if len(generated) != len(source):
        return spans
    columns = {
        row: _ColumnMap(written, read)
        for row, (written, read) in enumerate(zip(generated, source, strict=True), start=1)
        if written != read
    }
    if not columns:
        return spans
    moved = {}
    for node, ((line, column), (end_line, end_column)) in spans.items():
        start_map, end_map = columns.get(line), columns.get(end_line)
        if start_map is None and end_map is None:
            moved[node] = ((line, column), (end_line, end_column))
            continue
        new_column = column if start_map is None else start_map.start(column)
        new_end = end_column if end_map is None else end_map.end(end_column)
        if end_line == line:
            new_end = max(new_end, new_column)
        moved[node] = ((line, new_column), (end_line, new_end))
    return moved


class _ColumnMap:
    """Columns of one generated line as columns of the source line it stands for."""

    def __init__(self, written: str, read: str) -> None:
        self.length, self.read_length = len(written), len(read)
        #: (generated column, source column, length) of each run of characters the two lines share.
        self.blocks = SequenceMatcher(None, written, read, autojunk=False).get_matching_blocks()

    def start(self, column: int) -> int:
        """Where the character at ``column`` is in the source (a column past the last one maps
        past the source's last one)."""
        for written, read, size in self.blocks:
            if written <= column < written + size:
                return read + column - written
        return self._nearest(column)

    def end(self, column: int) -> int:
        """Where the text ending at ``column`` ends in the source."""
        for written, read, size in self.blocks:
            if written < column <= written + size:
                return read + column - written
        return self._nearest(column)

    def _nearest(self, column: int) -> int:
        """A column in no shared run (characters LibCST wrote that the source lacks): the source
        column after the last shared run before it."""
        after = 0
        for written, read, size in self.blocks:
            if written + size <= column and size:
                after = read + size
        return after if column < self.length else self.read_length


#: How many statements a file places by searching its text before parsing it with CPython instead:
#: each search reads the whole text, so a file with thousands of findings must not search for each.
_TEXT_SEARCHES = 16


class Locator:
    """Spans of one module's nodes, generating one statement at a time where it can.

    ``syntax_tree`` is CPython's tree of the same source when the caller has one; ``parse`` makes
    it when a statement's text alone cannot place the statement (None: CPython cannot parse it).
    """

    def __init__(
        self,
        module: cst.Module,
        text: str,
        syntax_tree: ast.Module | None,
        parse: Callable[[], ast.Module] | None = None,
    ) -> None:
        self.module = module
        self.text = text
        self.syntax_tree = syntax_tree
        self._parse = parse
        self._spans: dict[cst.CSTNode, Span] = {}
        self._generated: set[int] = set()
        self._whole_module = False
        self._line_starts: list[int] | None = None
        self._indexes: dict[int, dict[int, int]] = {}
        self._searches = 0

    def span(self, node: cst.CSTNode, path: Sequence[cst.CSTNode] = ()) -> Span:
        """The span of ``node``; ``path`` (module first, as the traversal's ancestors) narrows the work."""
        found = self._spans.get(node)
        if found is None and path and self.syntax_tree is None and self._searches < _TEXT_SEARCHES:
            self._searches += 1
            self._place_by_text(path)
            found = self._spans.get(node)
        if found is None and path and self._parse is not None and self.syntax_tree is None:
            self.syntax_tree, self._parse = self._parse(), None
        if found is None and path and self.syntax_tree is not None:
            self._generate_statement(path)
            found = self._spans.get(node)
        if found is None and not self._whole_module:
            self._spans.update(source_positions(self.module, self.text))
            self._whole_module = True
            found = self._spans.get(node)
        if found is None:
            raise KeyError(f"{type(node).__name__} node is not part of the module")
        return found

    def _place_by_text(self, path: Sequence[cst.CSTNode]) -> None:
        """Generate the innermost statement on ``path`` from line 1 and move its spans to the one
        line of the source where that text starts, if there is exactly one."""
        placed = self._innermost_in_tree(path)
        if placed is None or id(placed[0]) in self._generated:
            return
        statement, indents = placed
        holder, state = self._statement_state(indents)
        statement._codegen(state)
        first_line = self._only_line_starting_with("".join(state.tokens))
        if first_line is None:
            return
        self._generated.add(id(statement))
        shift = first_line - 1
        for node, ((line, column), (end_line, end_column)) in holder._computed.items():
            self._spans[node] = ((line + shift, column), (end_line + shift, end_column))

    def _statement_state(self, indents: list[str]) -> tuple[_Spans, _SpanState]:
        """A codegen state for one statement under ``indents``, and where it records spans."""
        holder = _Spans()
        state = _SpanState(
            default_indent=self.module.default_indent,
            default_newline=self.module.default_newline,
            provider=holder,
            indent_tokens=list(indents),
        )
        return holder, state

    def _innermost_in_tree(self, path: Sequence[cst.CSTNode]) -> tuple[cst.CSTNode, list[str]] | None:
        """The deepest statement on ``path`` reachable through ``def``/``class`` bodies, with the
        indents around it (LibCST's tree alone)."""
        placed = None
        for statement, indents, _ in self._descent(path):
            placed = (statement, indents)
        return placed

    def _descent(self, path: Sequence[cst.CSTNode]) -> Iterator[tuple[cst.CSTNode, list[str], int]]:
        """The statements on ``path``, outermost first, while each lies in a ``def``/``class`` body
        of the one before: each with the indents around it and its index in an ``ast`` body."""
        body: Sequence[cst.BaseStatement] = self.module.body
        indents: list[str] = []
        index = 1
        while index < len(path):
            statement = path[index]
            position = self._indexes_of(body).get(id(statement))
            if position is None:
                return
            yield statement, list(indents), position
            block = getattr(statement, "body", None)
            if not isinstance(statement, _DESCEND) or not isinstance(block, cst.IndentedBlock):
                return
            if index + 2 >= len(path) or path[index + 1] is not block:
                return
            indents.append(self.module.default_indent if block.indent is None else block.indent)
            body = block.body
            index += 2

    def _only_line_starting_with(self, code: str) -> int | None:
        """The line at whose start ``code`` occurs, when it occurs at the start of exactly one line."""
        starts = self._starts()
        found = None
        at = self.text.find(code)
        while code and at != -1:
            line = bisect_left(starts, at)
            if line < len(starts) and starts[line] == at:
                if found is not None:
                    return None
                found = line + 1
            at = self.text.find(code, at + 1)
        return found

    def _starts(self) -> list[int]:
        if self._line_starts is None:
            self._line_starts = [0, *(match.end() for match in _NEWLINE.finditer(self.text))]
        return self._line_starts

    def _generate_statement(self, path: Sequence[cst.CSTNode]) -> None:
        placed = self._innermost_statement(path)
        if placed is None or id(placed[0]) in self._generated:
            return
        statement, indents, first_line, _ = placed
        self._generated.add(id(statement))
        holder, state = self._statement_state(indents)
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
        syntax_body: list[ast.stmt] = self.syntax_tree.body
        placed = None
        for statement, indents, position in self._descent(path):
            if position >= len(syntax_body):
                break
            counterpart = syntax_body[position]
            first_line = _first_line(counterpart) - len(statement.leading_lines)  # type: ignore[attr-defined]
            placed = (statement, indents, first_line, counterpart)
            syntax_body = getattr(counterpart, "body", [])
        return placed

    def _indexes_of(self, body: Sequence[cst.BaseStatement]) -> dict[int, int]:
        """Computed once per body: a module with thousands of findings must not rescan it for each."""
        found = self._indexes.get(id(body))
        if found is None:
            found = self._indexes[id(body)] = _ast_indexes(body)
        return found

    def _matches_source(self, code: str, first_line: int) -> bool:
        starts = self._starts()
        if not 0 < first_line <= len(starts):
            return False
        return self.text.startswith(code, starts[first_line - 1])


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
