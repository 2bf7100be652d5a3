"""What the kernel source claims about its benchmarks: routing thresholds with their evidence comments,
and the routes the routers can take. Read with LibCST; nothing is imported or run.

A routing threshold is a module-level constant (an upper-case name) that a ``_should_*`` or ``_can_*``
predicate reads, or that a router compares. Routers are the functions of a ``routers`` module and
every function whose ``def`` line carries ``# torchperf: prevalidated``. The comment conventions are
documented in ``BENCHMARKS.md``::

    #: Evidence for 2: fold ahead of naive in warp-c1-n2, warp-c1-n4@1
    FOLD_MIN_BATCH = 2

    if _should_fold_batch(batch, channels):  # Route: fold
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

_CONSTANT = re.compile(r"_*[A-Z][A-Z0-9_]*")
_PREDICATE = re.compile(r"_?(should|can)_\w+")
_PREVALIDATED = re.compile(r"#\s*torchperf:\s*prevalidated\b")
_ROUTE = re.compile(r"#\s*Route:\s*(?P<name>\S+)\s*$")
_EVIDENCE = re.compile(r"#:\s*Evidence\b(?P<rest>.*)$")
_CONTINUATION = re.compile(r"#:\s{2,}(?P<rest>\S.*)$")
_HEAD = re.compile(r"\s+for\s+(?P<value>[^:]+?)\s*:\s*(?P<claims>.*)$")
_CLAIM = re.compile(r"(?P<route>[\w.-]+)\s+ahead\s+of\s+(?P<candidate>[\w.-]+)\s+in\s+(?P<regions>.+)")
_REGION = re.compile(r"(?P<id>[\w.-]+)(?:@(?P<threads>\d+))?")


class EvidenceSyntaxError(ValueError):
    """An ``#: Evidence`` comment that does not follow the documented grammar."""


@dataclass(frozen=True)
class Claim:
    """``ROUTE ahead of CANDIDATE in REGION[@THREADS], ...``: in every row of each region that takes
    ``route`` (at ``threads``, when given), the public call's median beats ``candidate``'s."""

    route: str
    candidate: str
    regions: tuple[tuple[str, int | None], ...]


@dataclass(frozen=True)
class Evidence:
    value: str
    claims: tuple[Claim, ...]
    line: int


@dataclass(frozen=True)
class Threshold:
    name: str
    value: str
    path: Path
    line: int
    evidence: Evidence | None
    problem: str | None = None  # why the evidence comment could not be read
    comment_line: int | None = None  # where the evidence comment starts, if there is one


@dataclass(frozen=True)
class RouteMarker:
    name: str
    path: Path
    line: int


@dataclass(frozen=True)
class KernelSources:
    thresholds: tuple[Threshold, ...]
    routes: tuple[RouteMarker, ...]


def scan(root: Path) -> KernelSources:
    """Thresholds and route markers of every Python file under ``root``, in path and line order."""
    modules = {path.relative_to(root): _Module.read(path) for path in sorted(root.rglob("*.py"))}
    used: dict[tuple[Path, str], None] = {}
    for relative, module in modules.items():
        for name, origin in module.thresholds_used():
            target = relative if origin is None else _resolve(relative, origin)
            if target in modules and name in modules[target].constants:
                used[(target, name)] = None
    thresholds = tuple(modules[relative].threshold(root / relative, name) for relative, name in sorted(used))
    routes = tuple(marker for relative, module in modules.items() for marker in module.routes(root / relative))
    return KernelSources(thresholds, routes)


def parse_evidence(text: str, line: int) -> Evidence:
    """The ``Evidence for VALUE: CLAIM; CLAIM`` comment whose text (``#:`` prefixes removed and
    continuation lines joined) follows the word ``Evidence``."""
    head = _HEAD.match(text)
    if head is None:
        raise EvidenceSyntaxError(
            "evidence must read `#: Evidence for VALUE: ROUTE ahead of CANDIDATE in REGIONS`"
        )
    claims = []
    for part in filter(None, (p.strip() for p in head["claims"].split(";"))):
        claim = _CLAIM.fullmatch(part)
        if claim is None:
            raise EvidenceSyntaxError(f"`{part}` is not `ROUTE ahead of CANDIDATE in REGION[@THREADS], ...`")
        regions = []
        for item in (r.strip() for r in claim["regions"].split(",")):
            region = _REGION.fullmatch(item)
            if region is None:
                raise EvidenceSyntaxError(f"`{item}` is not a region id with an optional @THREADS")
            regions.append((region["id"], int(region["threads"]) if region["threads"] else None))
        claims.append(Claim(claim["route"], claim["candidate"], tuple(regions)))
    if not claims:
        raise EvidenceSyntaxError("evidence names no benchmark regions")
    return Evidence(head["value"], tuple(claims), line)


def same_value(evidence_value: str, code_value: str) -> bool:
    """Whether the value an evidence comment was measured for is the constant's value now."""
    try:
        return ast.literal_eval(evidence_value) == ast.literal_eval(code_value)
    except (ValueError, SyntaxError, TypeError):
        return evidence_value.strip() == code_value.strip()


def _resolve(module: Path, origin: tuple[int, str]) -> Path:
    """The file a ``from .x import NAME`` in ``module`` reads from, relative to the package folder."""
    level, dotted = origin
    folder = module.parent
    for _ in range(level - 1):
        folder = folder.parent
    return folder.joinpath(*dotted.split(".")).with_suffix(".py") if dotted else folder / "__init__.py"


@dataclass
class _Constant:
    value: str
    line: int
    comments: tuple[tuple[int, str], ...]  # the comment lines right above the assignment


class _Module:
    """One parsed file: its module-level constants, imported names, predicates, routers and markers."""

    def __init__(self, wrapper: MetadataWrapper, is_routers: bool) -> None:
        self.module = wrapper.module
        self.positions = wrapper.resolve(PositionProvider)
        self.is_routers = is_routers
        self.constants = dict(self._constants())
        self.imports = dict(self._imports())

    @classmethod
    def read(cls, path: Path) -> _Module:
        return cls(MetadataWrapper(cst.parse_module(path.read_bytes())), path.stem == "routers")

    def line(self, node: cst.CSTNode) -> int:
        return self.positions[node].start.line

    def _constants(self) -> Iterator[tuple[str, _Constant]]:
        for statement in self.module.body:
            if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
                continue
            small = statement.body[0]
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                target, value = small.targets[0].target, small.value
            elif isinstance(small, cst.AnnAssign) and small.value is not None:
                target, value = small.target, small.value
            else:
                continue
            if isinstance(target, cst.Name) and _CONSTANT.fullmatch(target.value):
                yield (
                    target.value,
                    _Constant(self.module.code_for_node(value), self.line(statement), self._above(statement)),
                )

    def _above(self, statement: cst.SimpleStatementLine) -> tuple[tuple[int, str], ...]:
        """The contiguous comment lines directly above ``statement``, with their line numbers."""
        first = self.line(statement)
        above = list(statement.leading_lines)
        if statement is self.module.body[0]:  # LibCST keeps a module's opening comments in its header
            above = [*self.module.header, *above]
        lines: list[tuple[int, str]] = []
        for offset, empty in enumerate(reversed(above), start=1):
            if empty.comment is None:
                break
            lines.append((first - offset, empty.comment.value))
        return tuple(reversed(lines))

    def _imports(self) -> Iterator[tuple[str, tuple[int, str, str]]]:
        """``from .x import NAME [as LOCAL]`` at module level: LOCAL -> (dots, ``x``, NAME)."""
        for statement in self.module.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if not (isinstance(small, cst.ImportFrom) and small.relative) or isinstance(
                    small.names, cst.ImportStar
                ):
                    continue
                dotted = self.module.code_for_node(small.module) if small.module else ""
                for alias in small.names:
                    if isinstance(alias.name, cst.Name):
                        local = alias.evaluated_alias or alias.name.value
                        yield local, (len(small.relative), dotted, alias.name.value)

    def thresholds_used(self) -> Iterator[tuple[str, tuple[int, str] | None]]:
        """Constant names that predicates read or routers compare, each with the relative import it
        comes through (None: this module's own constant)."""
        for function in _functions(self.module):
            if _PREDICATE.fullmatch(function.name.value):
                names = _names(function.body)
            elif self.is_routers or _is_prevalidated(function):
                names = (name for comparison in _comparisons(function.body) for name in _names(comparison))
            else:
                continue
            for name in names:
                if name in self.constants:
                    yield name, None
                elif name in self.imports:
                    level, dotted, original = self.imports[name]
                    yield original, (level, dotted)

    def threshold(self, path: Path, name: str) -> Threshold:
        constant = self.constants[name]
        block = _evidence_block(constant.comments)
        if block is None:
            return Threshold(name, constant.value, path, constant.line, None)
        line, text = block
        try:
            return Threshold(name, constant.value, path, constant.line, parse_evidence(text, line), None, line)
        except EvidenceSyntaxError as error:
            return Threshold(name, constant.value, path, constant.line, None, f"{name}: {error}", line)

    def routes(self, path: Path) -> Iterator[RouteMarker]:
        collector = _Comments()
        self.module.visit(collector)
        for comment in collector.found:
            match = _ROUTE.match(comment.value)
            if match:
                yield RouteMarker(match["name"], path, self.line(comment))


def _evidence_block(comments: tuple[tuple[int, str], ...]) -> tuple[int, str] | None:
    """The line of the ``#: Evidence`` comment above a constant and its text with continuations joined."""
    for index, (line, text) in enumerate(comments):
        head = _EVIDENCE.match(text)
        if head is None:
            continue
        parts = [head["rest"]]
        for _, following in comments[index + 1 :]:
            continuation = _CONTINUATION.match(following)
            if continuation is None:
                break
            parts.append(" " + continuation["rest"])
        return line, "".join(parts)
    return None


class _Comments(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: list[cst.Comment] = []

    def visit_Comment(self, node: cst.Comment) -> None:
        self.found.append(node)


def _functions(node: cst.CSTNode) -> Iterator[cst.FunctionDef]:
    for child in node.children:
        if isinstance(child, cst.FunctionDef):
            yield child
        yield from _functions(child)


def _comparisons(node: cst.CSTNode) -> Iterator[cst.Comparison]:
    for child in node.children:
        if isinstance(child, cst.Comparison):
            yield child
        yield from _comparisons(child)


def _names(node: cst.CSTNode) -> Iterator[str]:
    for child in node.children:
        if isinstance(child, cst.Name):
            yield child.value
        yield from _names(child)


def _is_prevalidated(function: cst.FunctionDef) -> bool:
    body = function.body
    comment = body.header.comment if isinstance(body, cst.IndentedBlock) else None
    return comment is not None and bool(_PREVALIDATED.search(comment.value))
