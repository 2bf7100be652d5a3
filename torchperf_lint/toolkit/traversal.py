"""A fast read-only traversal of LibCST trees.

``CSTNode.visit`` rebuilds every node it passes (the same code serves transformers), and its
children include every comma, paren and whitespace node. Rules never look at those, so this walker
reads each node's fields directly, skips layout-only nodes, and keeps LibCST's visitor protocol:
``on_visit`` returning False skips the children, ``on_leave`` runs after them.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterator

import libcst as cst

#: Nodes that only carry layout (whitespace, comments, punctuation, operators): never visited.
LAYOUT = (
    cst.BaseParenthesizableWhitespace,
    cst.Newline,
    cst.EmptyLine,
    cst.TrailingWhitespace,
    cst.Comment,
    cst.Comma,
    cst.Dot,
    cst.LeftParen,
    cst.RightParen,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.LeftCurlyBrace,
    cst.RightCurlyBrace,
    cst.Colon,
    cst.Semicolon,
    cst.AssignEqual,
    cst.BaseBinaryOp,
    cst.BaseBooleanOp,
    cst.BaseCompOp,
    cst.BaseUnaryOp,
    cst.BaseAugOp,
)
_FIELDS: dict[type, tuple[str, ...]] = {}
#: Per concrete type: 1 a node to visit, 2 a sequence to look into, 0 anything else (layout, str, None).
_KINDS: dict[type, int] = {list: 2, tuple: 2}


_LAYOUT_BASES = frozenset(LAYOUT)


def _is_visited_type(kind_of: type) -> bool:
    """A LibCST node type that is not layout. Read from the MRO: ``issubclass`` against LibCST's
    abstract classes walks every subclass of each one on a miss, which costs a short run (a
    pre-commit hook on two files) tens of milliseconds."""
    mro = kind_of.__mro__
    return cst.CSTNode in mro and _LAYOUT_BASES.isdisjoint(mro)


def _kind(kind_of: type) -> int:
    """Classify a type once; ``isinstance`` against LibCST's abstract classes is slow per call."""
    kind = 1 if _is_visited_type(kind_of) else 0
    _KINDS[kind_of] = kind
    return kind


def _fields_of(node_type: type) -> tuple[str, ...]:
    """The fields of ``node_type`` whose declared type can hold a visitable node, in field order.

    Whitespace, punctuation and string fields are dropped once per type instead of being read and
    classified on every node (a ``Name`` has none left).
    """
    names = tuple(f.name for f in dataclasses.fields(node_type) if _may_hold_node(f.type))
    _FIELDS[node_type] = names
    return names


def _may_hold_node(annotation: object) -> bool:
    if isinstance(annotation, typing.ForwardRef):  # unresolvable: keep the field, to be safe
        annotation = getattr(cst, annotation.__forward_arg__, cst.CSTNode)
    if typing.get_origin(annotation) is typing.Literal:
        return False
    if isinstance(annotation, type):
        return _is_visited_type(annotation)
    return any(_may_hold_node(argument) for argument in typing.get_args(annotation))


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The node's non-layout children, in field order (source order within every body)."""
    names = _FIELDS.get(type(node))
    if names is None:
        names = _fields_of(type(node))
    found: list[cst.CSTNode] = []
    kinds = _KINDS
    for name in names:
        value = getattr(node, name)
        kind = kinds.get(type(value))
        if kind is None:
            kind = _kind(type(value))
        if kind == 1:
            found.append(value)
        elif kind == 2:
            for item in value:
                item_kind = kinds.get(type(item))
                if item_kind is None:
                    item_kind = _kind(type(item))
                if item_kind == 1:
                    found.append(item)
    return found


def visit(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """Run ``visitor`` over ``node`` and its non-layout descendants (depth first, source order)."""
    if visitor.on_visit(node):
        for child in children(node):
            visit(child, visitor)
    visitor.on_leave(node)


def walk(node: cst.CSTNode, *, into_functions: bool = True) -> Iterator[cst.CSTNode]:
    """Every non-layout node below ``node`` (itself included), optionally not entering nested defs."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if current is not node and not into_functions and isinstance(current, cst.FunctionDef | cst.Lambda):
            continue
        stack.extend(children(current))


def in_source_order(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Every non-layout node below ``node`` (itself included) in source order, not entering nested
    defs: for rules that report the first of several matches."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if current is not node and isinstance(current, cst.FunctionDef | cst.Lambda):
            continue
        stack.extend(reversed(children(current)))
