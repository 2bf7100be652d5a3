"""Which statements run together: exits that make code run at most once, or exclude what follows.

A loop body that always leaves (its last statement is ``return``, ``break`` or ``raise``) runs once,
and so does a branch inside the loop that ends in one of them. A branch that ends in ``return`` or
``raise`` never runs before the code after its ``if``. Everything here reads the engine's ancestor
stack, or ancestors a rule saved, so it costs the depth of the node, not a pass over the function.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from torchperf_lint.toolkit.scopes import dotted

#: Statements after which control never reaches the next statement of the same block.
_LEAVING = (cst.Return, cst.Raise, cst.Break)
_FUNCTION_EXITS = (cst.Return, cst.Raise)
_BLOCK_OWNERS = (cst.If, cst.Else, cst.For, cst.While, cst.With, cst.Try, cst.ExceptHandler, cst.Finally)


def ends_with(block: cst.BaseSuite, kinds: tuple[type, ...]) -> bool:
    """Whether the last statement of ``block`` is one of ``kinds`` (``return``, ``break``...)."""
    statements = block.body
    if not statements:
        return False
    last = statements[-1]
    if isinstance(last, cst.SimpleStatementLine):
        return bool(last.body) and (
            isinstance(last.body[-1], kinds) or (cst.Raise in kinds and _fails(last.body[-1]))
        )
    if isinstance(last, cst.If) and isinstance(last.orelse, cst.Else | cst.If):
        return ends_with(last.body, kinds) and _orelse_ends_with(last.orelse, kinds)
    return False


def _fails(statement: cst.BaseSmallStatement) -> bool:
    """``torch._assert(False, ...)``: TorchScript-friendly code spells ``raise`` this way."""
    if not (isinstance(statement, cst.Expr) and isinstance(statement.value, cst.Call)):
        return False
    call = statement.value
    args = call.args
    return (
        dotted(call.func) == "torch._assert"
        and bool(args)
        and isinstance(args[0].value, cst.Name)
        and args[0].value.value == "False"
    )


def _orelse_ends_with(orelse: cst.If | cst.Else, kinds: tuple[type, ...]) -> bool:
    if isinstance(orelse, cst.Else):
        return ends_with(orelse.body, kinds)
    if orelse.orelse is None:
        return False
    return ends_with(orelse.body, kinds) and _orelse_ends_with(orelse.orelse, kinds)


def runs_at_most_once(ancestors: Sequence[cst.CSTNode], loop: cst.CSTNode) -> bool:
    """Whether the node whose ancestors are given runs at most once per entry into ``loop``: the
    loop's body, or a block between it and the node, always leaves the loop (or the function).

    Below an inner loop, ``break`` only leaves that inner loop, so there only ``return`` and
    ``raise`` count.
    """
    start = next((i for i in range(len(ancestors) - 1, -1, -1) if ancestors[i] is loop), None)
    if start is None:
        return False
    leaving = _LEAVING
    for index in range(start + 1, len(ancestors)):
        node = ancestors[index]
        if isinstance(node, cst.For | cst.While):
            leaving = _FUNCTION_EXITS
        elif isinstance(node, cst.BaseSuite) and isinstance(ancestors[index - 1], _BLOCK_OWNERS):
            if ends_with(node, leaving):
                return True
    return False


def excludes(earlier: Sequence[cst.CSTNode], later: Sequence[cst.CSTNode]) -> bool:
    """Whether a statement with ancestors ``earlier`` never runs before a node with ancestors
    ``later``: some block holding the first, but not the second, ends in ``return`` or ``raise``."""
    inside_later = {id(node) for node in later}
    for index, node in enumerate(earlier):
        if id(node) in inside_later or not isinstance(node, cst.BaseSuite) or index == 0:
            continue
        if isinstance(earlier[index - 1], _BLOCK_OWNERS) and ends_with(node, _FUNCTION_EXITS):
            return True
    return False
