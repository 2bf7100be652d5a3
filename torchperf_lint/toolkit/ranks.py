"""How many axes a view or a reshape has, where its call spells them out.

A reshape that merges axes a permutation separated cannot be a view: it copies the data itself. A
``.contiguous()`` between the two then makes that same copy earlier, and dropping it saves nothing.
Which axes a reshape merges depends on sizes the source does not show, so the test is what the
call's arguments show: the reshape asks for fewer axes than the permuted view has, or spells one of
its sizes as a product of sizes (``reshape(B * N, T, 1)``), the way merged axes are written.
"""

from __future__ import annotations

import libcst as cst

from torchperf_lint.toolkit.matching import method_name

#: Views that swap two axes given as integers: the larger index (or the magnitude of a negative one)
#: bounds the rank from below.
_SWAPS = frozenset({"transpose", "swapaxes", "swapdims", "movedim", "moveaxis"})
_PERMUTES = frozenset({"permute"})


def permuted_rank(view: cst.BaseExpression) -> int | None:
    """The least number of axes ``view`` has, when it is a call that reorders axes given literally:
    ``permute(0, 2, 1, 3)`` has 4, ``transpose(-3, -2)`` at least 3, ``.t()`` 2; also the functional
    forms, which take the tensor first (``torch.transpose(x, -1, 0)``, ``torch.permute(x, (2, 1, 0))``).
    None otherwise."""
    if not isinstance(view, cst.Call):
        return None
    method = method_name(view)
    if method == "t":
        return 2
    args = list(view.args)
    functional = (len(args) == 3 and method in _SWAPS) or (
        len(args) == 2 and method in _PERMUTES and isinstance(args[1].value, cst.Tuple | cst.List)
    )
    if functional:
        args = args[1:]  # the tensor, then the axes
    if method in _PERMUTES:
        return _axis_count(args)
    if method in _SWAPS and len(args) == 2 and all(a.keyword is None for a in args):
        bounds = [_least_rank(a.value) for a in args]
        return max(bounds) if all(b is not None for b in bounds) else None  # type: ignore[type-var]
    return None


def merges_axes(reshape: cst.Call, rank: int) -> bool:
    """Whether ``reshape`` (``.reshape`` or ``.flatten`` of a value with at least ``rank`` axes)
    merges axes: it asks for fewer than ``rank``, asks for a product of sizes, or flattens a span of
    more than one."""
    method = method_name(reshape)
    if method == "flatten":
        span = [_integer(a.value) for a in reshape.args if a.keyword is None]
        return len(span) < 2 or None in span or span[0] != span[1]
    if method == "reshape":
        count = _axis_count(reshape.args)
        return (count is not None and count < rank) or any(
            _product_of_sizes(a.value) for a in _shape_of(reshape.args)
        )
    return False


def _shape_of(args: tuple[cst.Arg, ...] | list[cst.Arg]) -> list[cst.Arg] | list[cst.Element]:
    """The sizes ``reshape(a, b)`` or ``reshape((a, b))`` asks for."""
    if len(args) == 1 and isinstance(args[0].value, cst.Tuple | cst.List):
        return list(args[0].value.elements)
    return list(args)


def _product_of_sizes(size: cst.BaseExpression) -> bool:
    """``B * N`` or ``b * h * w``: sizes multiplied into one axis, with no literal factor (``2 * n``
    may be an axis's own length doubled)."""
    if not (isinstance(size, cst.BinaryOperation) and isinstance(size.operator, cst.Multiply)):
        return False
    return all(_is_size(side) for side in (size.left, size.right))


def _is_size(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
        return _is_size(node.left) and _is_size(node.right)
    return isinstance(node, cst.Name | cst.Attribute | cst.Subscript | cst.Call)


def _axis_count(args: tuple[cst.Arg, ...] | list[cst.Arg]) -> int | None:
    """The number of axes ``f(a, b, c)`` or ``f((a, b, c))`` names; None when a star or a single
    non-literal argument (a shape held in a name) hides it."""
    if any(a.star or a.keyword is not None for a in args):
        return None
    if len(args) == 1:
        only = args[0].value
        if isinstance(only, cst.Tuple | cst.List):
            if any(isinstance(e, cst.StarredElement) for e in only.elements):
                return None
            return len(only.elements)
        return 1 if _integer(only) is not None else None
    return len(args)


def _least_rank(axis: cst.BaseExpression) -> int | None:
    """The least rank a tensor needs for ``axis`` to name one of its axes."""
    index = _integer(axis)
    if index is None:
        return None
    return -index if index < 0 else index + 1


def _integer(node: cst.BaseExpression) -> int | None:
    if isinstance(node, cst.Integer):
        return int(node.value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = _integer(node.expression)
        return -inner if inner is not None else None
    return None
