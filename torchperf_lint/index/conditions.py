"""Checks compared as code: the condition under which a check fails, in one canonical spelling.

``if not isinstance(x, T): raise TypeError`` and ``assert isinstance(x, T)`` fail on the same
condition; CPython's ``ast.unparse`` of that condition is the same text whichever spacing, quotes or
parentheses the source used, and whichever tree (CPython's or LibCST's) it was read from.
"""

from __future__ import annotations

import ast


def failing_condition(test: ast.expr, *, asserted: bool) -> str:
    """The condition under which the check fails: an ``if`` test that leads to a ``raise``, or the
    negation of an ``assert``'s test."""
    if asserted:
        negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
        test = test.operand if negated else ast.UnaryOp(ast.Not(), test)  # type: ignore[attr-defined]
    return ast.unparse(test)


def failing_condition_of(source: str, *, asserted: bool) -> str | None:
    """:func:`failing_condition` of a condition given as source text (None if it does not parse)."""
    try:
        test = ast.parse(source.strip(), mode="eval").body
    except SyntaxError:
        return None
    return failing_condition(test, asserted=asserted)


def renamed(condition: str, names: dict[str, str]) -> str | None:
    """``condition`` with names replaced (a caller's argument names by the callee's parameter names);
    None when it reads none of them: it checks nothing the callee receives."""
    tree = ast.parse(condition, mode="eval")
    read = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    if not read & names.keys():
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in names:
            node.id = names[node.id]
    return ast.unparse(tree)
