"""Which values can require grad: what a heavy call must receive before autograd could record it.

A heavy call records a graph only when one of its tensor arguments requires grad, and only an input
can bring that in: a theta built with ``torch.from_numpy``, a grid from ``torch.linspace``, shapes
and dtypes never do. A value is known not to require grad when it is a literal, a shape, size,
dtype or device read, a NumPy result, a fresh tensor (``torch.from_numpy``, ``torch.zeros`` and the
other constructors, without ``requires_grad=True``), a method or operator over such values, or a
local name every binding of which is one of those. Anything else (a parameter, a name from outside
the function, a call this module cannot see into) may require grad.
"""

from __future__ import annotations

import libcst as cst

from torchperf_lint.context import FileContext
from torchperf_lint.toolkit.functions import parameters
from torchperf_lint.toolkit.matching import keyword, walk
from torchperf_lint.toolkit.types import ARRAY, annotation_kind

#: Constructors whose result never requires grad unless asked to (``requires_grad=True``).
_FRESH = frozenset(
    f"torch.{name}"
    for name in (
        "from_numpy as_tensor tensor asarray zeros ones empty full arange linspace logspace eye rand randn "
        "randint randperm zeros_like ones_like empty_like full_like rand_like randn_like meshgrid"
    ).split()
)
#: Reads that give metadata, not a tensor.
_METADATA = frozenset({"shape", "ndim", "dtype", "device", "is_contiguous", "size", "dim", "numel", "stride"})


def may_require_grad(ctx: FileContext, function: cst.FunctionDef, value: cst.BaseExpression) -> bool:
    """Whether ``value``, read inside ``function``, can be a tensor that requires grad."""
    return not _NoGrad(ctx, _bindings(ctx, function)).holds(value, frozenset())


def _bindings(ctx: FileContext, function: cst.FunctionDef) -> dict[str, list[cst.BaseExpression | None]]:
    """Every value each local name of ``function`` is bound to (None: bound otherwise, by a loop,
    a ``with``, an augmented assignment or an unpacking it cannot follow); computed once."""
    key = ("grad-bindings", id(function))
    found = ctx.facts.get(key)
    if found is not None:
        return found  # type: ignore[return-value]
    bindings: dict[str, list[cst.BaseExpression | None]] = {}
    for param in parameters(function):
        if param.annotation is not None and _never_a_tensor(ctx, param.annotation.annotation):
            bindings[param.name.value] = [cst.Integer("0")]  # holds a value that cannot require grad
    for node in walk(function.body, into_functions=False):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                _bind(bindings, target.target, node.value)
        elif isinstance(node, cst.AnnAssign) and node.value is not None:
            _bind(bindings, node.target, node.value)
        elif isinstance(node, cst.AugAssign | cst.For | cst.WithItem | cst.NamedExpr):
            target = (
                node.asname.name
                if isinstance(node, cst.WithItem) and node.asname
                else getattr(node, "target", None)
            )
            for name in walk(target) if target is not None else ():
                if isinstance(name, cst.Name):
                    bindings.setdefault(name.value, []).append(None)
    ctx.facts[key] = bindings
    return bindings


_SCALARS = frozenset({"int", "float", "bool", "str", "bytes", "complex", "None"})
_CONTAINERS = frozenset(
    {"tuple", "list", "typing.Tuple", "typing.List", "typing.Sequence", "collections.abc.Sequence"}
)


def _never_a_tensor(ctx: FileContext, annotation: cst.BaseExpression) -> bool:
    """``int``, ``tuple[int, int, int]``, ``np.ndarray``, ``str | None``: a type no tensor belongs to."""
    if isinstance(annotation, cst.Name) and annotation.value in _SCALARS:
        return True
    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        return _never_a_tensor(ctx, annotation.left) and _never_a_tensor(ctx, annotation.right)
    if isinstance(annotation, cst.Subscript):
        base = annotation.value
        name = base.value if isinstance(base, cst.Name) and base.value in ("tuple", "list") else ctx.qualname(base)
        if name in _CONTAINERS:
            items = [e.slice.value for e in annotation.slice if isinstance(e.slice, cst.Index)]
            return all(isinstance(i, cst.Ellipsis) or _never_a_tensor(ctx, i) for i in items)
    return annotation_kind(ctx, annotation) == ARRAY


def _bind(
    bindings: dict[str, list[cst.BaseExpression | None]], target: cst.BaseExpression, value: cst.BaseExpression
) -> None:
    if isinstance(target, cst.Name):
        bindings.setdefault(target.value, []).append(value)
    elif isinstance(target, cst.Tuple | cst.List):
        values = value.elements if isinstance(value, cst.Tuple | cst.List) else None
        if values is not None and len(values) == len(target.elements):
            for element, item in zip(target.elements, values, strict=True):
                _bind(bindings, element.value, item.value)
        else:
            for element in target.elements:
                _bind_unknown(bindings, element.value)
    else:
        _bind_unknown(bindings, target)


def _bind_unknown(bindings: dict[str, list[cst.BaseExpression | None]], target: cst.BaseExpression) -> None:
    for name in walk(target):
        if isinstance(name, cst.Name):
            bindings.setdefault(name.value, []).append(None)


class _NoGrad:
    def __init__(self, ctx: FileContext, bindings: dict[str, list[cst.BaseExpression | None]]) -> None:
        self.ctx, self.bindings = ctx, bindings

    def holds(self, node: cst.BaseExpression, seen: frozenset[str]) -> bool:
        """Whether ``node`` is known not to require grad."""
        if isinstance(node, cst.BaseNumber | cst.BaseString | cst.Ellipsis):
            return True
        if isinstance(node, cst.Name):
            return self._name(node.value, seen)
        if isinstance(node, cst.Attribute):
            return node.attr.value in _METADATA or self.holds(node.value, seen)
        if isinstance(node, cst.Subscript):
            return self.holds(node.value, seen)
        if isinstance(node, cst.Tuple | cst.List):
            return all(self.holds(e.value, seen) for e in node.elements)
        if isinstance(node, cst.BinaryOperation):
            return self.holds(node.left, seen) and self.holds(node.right, seen)
        if isinstance(node, cst.UnaryOperation):
            return self.holds(node.expression, seen)
        if isinstance(node, cst.Call):
            return self._call(node, seen)
        return False

    def _name(self, name: str, seen: frozenset[str]) -> bool:
        if name in ("True", "False", "None"):
            return True
        values = self.bindings.get(name)
        if not values or name in seen:
            return False  # a parameter or a name from outside: it may
        return all(v is not None and self.holds(v, seen | {name}) for v in values)

    def _call(self, call: cst.Call, seen: frozenset[str]) -> bool:
        asked = keyword(call, "requires_grad")
        if asked is not None and not (isinstance(asked.value, cst.Name) and asked.value.value == "False"):
            return False
        func = call.func
        qualname = self.ctx.qualname(func)
        if qualname in _FRESH or (qualname or "").startswith("numpy."):
            return True
        if isinstance(func, cst.Name) and func.value == "len":
            return True
        if isinstance(func, cst.Attribute) and qualname is None:
            if func.attr.value in _METADATA:
                return True
            receiver_ok = self.holds(func.value, seen)
            return receiver_ok and all(self.holds(arg.value, seen) for arg in call.args)
        return False
