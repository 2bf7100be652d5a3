"""Runs every rule's ``visit_X``/``leave_X`` methods in one traversal, keeping the shared state.

This loop runs once per node of every linted file, so it is written for speed: handlers are looked
up once per node type, node types are compared exactly (LibCST's are final), and visiting, the
children and leaving happen in one function instead of LibCST's visitor protocol.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache

import libcst as cst

from torchperf_lint.context import FileContext
from torchperf_lint.rule import Rule
from torchperf_lint.toolkit.traversal import children

Handler = Callable[[cst.CSTNode], object]
#: Node types that open a scope (the scope builder's) and, when named, a level of qualified name.
_SCOPE_NODES = frozenset({cst.FunctionDef, cst.ClassDef, cst.Lambda})


@cache
def _hooks(cls: type[Rule]) -> tuple[tuple[str, str, str], ...]:
    """(kind, node type name, attribute) for each ``visit_X``/``leave_X`` method of a rule class."""
    found = []
    for attr in dir(cls):
        kind, _, node_type = attr.partition("_")
        if kind in ("visit", "leave") and node_type:
            found.append((kind, node_type, attr))
    return tuple(found)


def has_visitors(cls: type[Rule]) -> bool:
    """Rules without visitor methods document findings the engine emits itself (TPL9xx)."""
    return bool(_hooks(cls))


class Dispatcher:
    """One depth-first pass over a module that calls every rule's hooks on the nodes they name."""

    def __init__(self, ctx: FileContext, rules: Iterable[Rule]) -> None:
        self.ctx = ctx
        self._visits: dict[str, list[Handler]] = {}
        self._leaves: dict[str, list[Handler]] = {}
        for rule in rules:
            for kind, node_type, attr in _hooks(type(rule)):
                table = self._visits if kind == "visit" else self._leaves
                table.setdefault(node_type, []).append(getattr(rule, attr))
        self._handlers: dict[type, tuple[tuple[Handler, ...], tuple[Handler, ...]]] = {}

    def run(self, module: cst.Module) -> None:
        self.ctx.scope_stack.append(self.ctx.scopes[module])
        self._visit(module)

    def _handlers_for(self, node_type: type) -> tuple[tuple[Handler, ...], tuple[Handler, ...]]:
        name = node_type.__name__
        found = (tuple(self._visits.get(name, ())), tuple(self._leaves.get(name, ())))
        self._handlers[node_type] = found
        return found

    def _visit(self, node: cst.CSTNode) -> None:
        ctx = self.ctx
        node_type = type(node)
        visits, leaves = self._handlers.get(node_type) or self._handlers_for(node_type)
        ctx.ancestors.append(node)
        opens_scope = node_type in _SCOPE_NODES
        if opens_scope:
            ctx.scope_stack.append(ctx.scopes[node])
            if node_type is not cst.Lambda:
                ctx.qualname_stack.append(node.name.value)  # type: ignore[attr-defined]
        for handler in visits:
            handler(node)
        for child in children(node):
            self._visit(child)
        for handler in leaves:
            handler(node)
        if opens_scope:
            ctx.scope_stack.pop()
            if node_type is not cst.Lambda:
                ctx.qualname_stack.pop()
        ctx.ancestors.pop()
