"""Function-level facts rules share: the kernel map's role of a function, and what encloses a node.

Everything here reads the engine's ancestor stack for the node being visited, so it stays inside the
innermost ``def``: a loop or a ``with`` outside a nested function does not cover that function's body.
"""

from __future__ import annotations

import libcst as cst

from torchperf_lint.context import FileContext
from torchperf_lint.kernel_map.facts import Prevalidation
from torchperf_lint.toolkit import traversal
from torchperf_lint.vocabulary import GRAD_GUARDS

_LOOPS = frozenset({cst.For, cst.While})
_COMPREHENSIONS = frozenset({cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp})
_FUNCTIONS = frozenset({cst.FunctionDef, cst.Lambda})


def prevalidation(ctx: FileContext) -> Prevalidation | None:
    """Why the function being visited is caller-prevalidated, per the kernel map (None: it is not)."""
    role = ctx.role()
    return role.prevalidated if role is not None else None


def primitive(ctx: FileContext) -> str | None:
    """Why the function being visited is a primitive, per the kernel map (None: it is not)."""
    role = ctx.role()
    return role.primitive if role is not None else None


def parameters(function: cst.FunctionDef) -> list[cst.Param]:
    """The named parameters of ``function`` (positional-only, ordinary, keyword-only)."""
    params = function.params
    return [*params.posonly_params, *params.params, *params.kwonly_params]


def _own_ancestors(ctx: FileContext) -> list[cst.CSTNode]:
    """Ancestors of the visited node, innermost first, up to (not past) the innermost function. A
    lambda handed to ``map``, ``filter``, ``sorted``, ``min`` or ``max`` runs where that call runs
    (``map(lambda t: t.item(), pair)`` in a loop body runs each pass), so the walk goes on past it."""
    found = []
    ancestors = ctx.ancestors
    for index in range(len(ancestors) - 2, -1, -1):
        node = ancestors[index]
        found.append(node)
        if type(node) in _FUNCTIONS and not _runs_in_place(ancestors, index):
            break
    return found


#: Builtins that call the function they are given before their caller goes on.
_APPLYING = frozenset({"map", "filter", "sorted", "min", "max"})


def _runs_in_place(ancestors: list[cst.CSTNode], index: int) -> bool:
    call = ancestors[index - 2] if index >= 2 else None
    return (
        type(ancestors[index]) is cst.Lambda
        and type(ancestors[index - 1]) is cst.Arg
        and isinstance(call, cst.Call)
        and isinstance(call.func, cst.Name)
        and call.func.value in _APPLYING
    )


def binding_loop(ctx: FileContext, name: str) -> cst.For | cst.CompFor | None:
    """The nearest ``for`` loop or comprehension ``for`` around the visited node, in the same scope,
    whose target binds ``name`` (alone or as one name of an unpacking)."""
    for node in reversed(ctx.ancestors):
        if isinstance(node, cst.FunctionDef | cst.ClassDef | cst.Lambda):
            return None
        loops: list[cst.For | cst.CompFor] = [node] if isinstance(node, cst.For) else []
        if isinstance(node, cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp):
            inner: cst.CompFor | None = node.for_in
            while inner is not None:
                loops.append(inner)
                inner = inner.inner_for_in
        for loop in loops:
            if any(isinstance(n, cst.Name) and n.value == name for n in traversal.walk(loop.target)):
                return loop
    return None


def in_loop(ctx: FileContext) -> cst.CSTNode | None:
    """The innermost loop or comprehension whose repeated part holds the visited node.

    A ``for`` loop's iterable and a comprehension's outermost iterable run once, not per item.
    Rules ask this for most calls, so it compares exact node types (LibCST's are final).
    """
    child = ctx.ancestors[-1]
    outer_iterable = False
    for node in _own_ancestors(ctx):
        kind = type(node)
        if kind is cst.CompFor:
            outer_iterable = child is node.iter  # type: ignore[attr-defined]
        elif kind in _COMPREHENSIONS:
            if not (outer_iterable and child is node.for_in):  # type: ignore[attr-defined]
                return node
            outer_iterable = False
        elif kind in _LOOPS and (child is node.body or child is getattr(node, "test", None)):  # type: ignore[attr-defined]
            return node
        child = node
    return None


def enclosing_loops(ctx: FileContext) -> list[cst.For | cst.While]:
    """Every ``for``/``while`` of the innermost function whose body holds the visited node, innermost first."""
    found = []
    child = ctx.ancestors[-1]
    for node in _own_ancestors(ctx):
        if type(node) in _LOOPS and child is node.body:  # type: ignore[attr-defined]
            found.append(node)
        child = node
    return found  # type: ignore[return-value]


def under_grad_guard(ctx: FileContext) -> bool:
    """Inside ``with torch.no_grad():``/``inference_mode()`` or a function decorated with either."""
    for node in _own_ancestors(ctx):
        if isinstance(node, cst.With) and any(_is_guard(ctx, item.item) for item in node.items):
            return True
        if isinstance(node, cst.FunctionDef):
            return any(_is_guard(ctx, decorator.decorator) for decorator in node.decorators)
    return False


def _is_guard(ctx: FileContext, expression: cst.BaseExpression) -> bool:
    target = expression.func if isinstance(expression, cst.Call) else expression
    return ctx.qualname(target) in GRAD_GUARDS


def module_functions(ctx: FileContext) -> dict[str, cst.FunctionDef]:
    """The module-level functions of the file, by name (computed once per file)."""
    key = ("module-functions", id(ctx.module))
    found = ctx.facts.get(key)
    if found is None:
        found = ctx.facts[key] = {n.name.value: n for n in ctx.module.body if isinstance(n, cst.FunctionDef)}
    return found  # type: ignore[return-value]


def class_methods(ctx: FileContext, function: cst.FunctionDef) -> dict[str, cst.FunctionDef]:
    """The methods of the class whose body defines ``function`` (empty for a plain function). Read
    from the engine's ancestors, so ask while visiting inside ``function``; computed once per class."""
    ancestors = ctx.ancestors
    index = next((i for i in range(len(ancestors) - 1, -1, -1) if ancestors[i] is function), None)
    owner = ancestors[index - 2] if index is not None and index >= 2 else None
    if not isinstance(owner, cst.ClassDef):
        return {}
    key = ("class-methods", id(owner))
    found = ctx.facts.get(key)
    if found is None:
        body = owner.body.body if isinstance(owner.body, cst.IndentedBlock) else ()
        found = ctx.facts[key] = {n.name.value: n for n in body if isinstance(n, cst.FunctionDef)}
    return found  # type: ignore[return-value]
