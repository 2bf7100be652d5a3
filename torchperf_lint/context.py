"""What a rule sees of the file being linted: names, ancestors, positions, and a way to report."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from functools import cached_property

import libcst as cst
from libcst.metadata import CodePosition, CodeRange

from torchperf_lint.fixes import PendingFix
from torchperf_lint.kernel_map.facts import NO_FACTS, FileFacts, FunctionRole
from torchperf_lint.lines import split_lines
from torchperf_lint.toolkit.positions import Locator
from torchperf_lint.toolkit.scopes import Scope


@dataclass
class PendingFinding:
    code: str
    node: cst.CSTNode
    message: str
    fix: PendingFix | None = None
    path: tuple[cst.CSTNode, ...] = ()  # the ancestors when reported: lets positions stay local


@dataclass
class FileContext:
    """Per-file state shared by every rule during the engine's single traversal."""

    path: str
    module_name: str
    text: str
    module: cst.Module
    scopes: dict[cst.CSTNode, Scope]
    #: What the kernel map says about this file's functions and the project functions it calls.
    kernel: FileFacts = NO_FACTS
    ancestors: list[cst.CSTNode] = field(default_factory=list)
    scope_stack: list[Scope] = field(default_factory=list)
    qualname_stack: list[str] = field(default_factory=list)
    findings: list[PendingFinding] = field(default_factory=list)
    syntax_tree: ast.Module | None = None
    #: Whether CPython parses the file although no tree was given (the project index parsed these
    #: bytes): positions then parse it when a finding needs one.
    reparse: bool = False
    #: Facts the toolkit computed once for a function or block, keyed by (kind, id of the node).
    facts: dict[tuple[str, int], object] = field(default_factory=dict)
    _mentioned: dict[re.Pattern[str], bool] = field(default_factory=dict)
    _reported: set[tuple[str, int]] = field(default_factory=set)

    @property
    def scope(self) -> Scope:
        return self.scope_stack[-1]

    @property
    def parent(self) -> cst.CSTNode | None:
        """The parent of the node being visited (the visited node is the last ancestor)."""
        return self.ancestors[-2] if len(self.ancestors) > 1 else None

    @cached_property
    def imports_torch(self) -> bool:
        """Whether any scope binds a name imported from torch (method matching needs this)."""
        return any(
            target == "torch" or target.startswith("torch.")
            for scope in self.scopes.values()
            for targets in scope.bindings.values()
            for target in targets
        )

    @property
    def reaches_torch(self) -> bool:
        """Whether the file imports torch, or a project module that does: tensor-only methods
        (``.requires_grad_()``) and device tests in it speak of torch even where torch is not named."""
        return self.imports_torch or self.kernel.reaches_torch

    @cached_property
    def imported_names(self) -> frozenset[str]:
        """Every name some scope binds to an import: any other name has no qualified name."""
        return frozenset(
            name for scope in self.scopes.values() for name, targets in scope.bindings.items() if any(targets)
        )

    def qualname(self, node: cst.BaseExpression) -> str | None:
        """The fully qualified imported name of a ``Name``/``Attribute`` chain, if any.

        Called for most names in a file, so it checks the chain's root against ``imported_names``
        before building any text (LibCST node types are final: ``type() is`` suffices).
        """
        attributes: list[str] = []
        while type(node) is cst.Attribute:
            attributes.append(node.attr.value)  # type: ignore[attr-defined]
            node = node.value  # type: ignore[attr-defined]
        if type(node) is not cst.Name or node.value not in self.imported_names:  # type: ignore[attr-defined]
            return None
        target = self.scope.lookup(node.value)  # type: ignore[attr-defined]
        if target is not None and self.kernel.aliases:
            target = self.kernel.aliases.get(target, target)
        if target is None or not attributes:
            return target
        attributes.append(target)
        return ".".join(reversed(attributes))

    def enclosing_function(self) -> cst.FunctionDef | None:
        for node in reversed(self.ancestors):
            if isinstance(node, cst.FunctionDef):
                return node
        return None

    def function_qualname(self) -> str:
        """Dotted name of the innermost enclosing def, e.g. ``pkg.mod.Class.method``."""
        parts = [self.module_name, *self.qualname_stack] if self.module_name else self.qualname_stack
        return ".".join(parts)

    def role(self) -> FunctionRole | None:
        """The kernel map's role for the innermost enclosing function (None: no role)."""
        return self.kernel.role(self.function_qualname())

    def mentions(self, pattern: re.Pattern[str]) -> bool:
        """Whether the raw source matches ``pattern`` (a cheap test before positions); searched once."""
        found = self._mentioned.get(pattern)
        if found is None:
            found = self._mentioned[pattern] = pattern.search(self.text) is not None
        return found

    def line(self, row: int) -> str:
        """Source line ``row`` (1-based)."""
        return self._lines[row - 1] if 0 < row <= len(self._lines) else ""

    @cached_property
    def _lines(self) -> list[str]:
        return split_lines(self.text)

    @cached_property
    def _locator(self) -> Locator:
        # When the engine skipped its syntax check (the project index had parsed the same bytes),
        # CPython's tree is parsed only if a statement's text cannot place it.
        parse = (lambda: ast.parse(self.text)) if self.syntax_tree is None and self.reparse else None
        return Locator(self.module, self.text, self.syntax_tree, parse)

    def position(self, node: cst.CSTNode, path: tuple[cst.CSTNode, ...] | None = None) -> CodeRange:
        """Position of ``node``, computed on demand so clean files never pay for it. ``path`` is the
        ancestors of a node reported earlier; by default, those of the node being visited."""
        where = tuple(self.ancestors) if path is None else path
        (line, column), (end_line, end_column) = self._locator.span(node, where)
        return CodeRange(CodePosition(line, column), CodePosition(end_line, end_column))

    def report(self, code: str, node: cst.CSTNode, message: str, fix: PendingFix | None = None) -> None:
        """Record a finding; the same rule reporting the same node twice counts once."""
        key = (code, id(node))
        if key not in self._reported:
            self._reported.add(key)
            self.findings.append(PendingFinding(code, node, message, fix, tuple(self.ancestors)))
