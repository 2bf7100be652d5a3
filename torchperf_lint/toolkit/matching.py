"""Torch-specific predicates shared by rules, so no rule re-implements them."""

from __future__ import annotations

import libcst as cst

from torchperf_lint.context import FileContext
from torchperf_lint.toolkit.traversal import walk
from torchperf_lint.vocabulary import NON_CPU_DEVICES, named_device

__all__ = ["walk"]  # re-exported: rules import their tree helpers from one place


def string_value(node: cst.BaseExpression) -> str | None:
    """The value of a plain string literal, or None for anything else (f-strings included)."""
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    if isinstance(node, cst.ConcatenatedString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def device_text(node: cst.BaseExpression) -> str | None:
    """The device a string names: ``"cuda:0"``, ``f"cuda:{i}"``, ``"cuda:" + str(i)``, ``"cuda:%d" % i``
    and ``"cuda:{}".format(i)`` all give ``cuda``; None when the node is no string or a string built
    from a start that is not a device name followed by an index. Case is kept: torch's device strings
    are lower case (``torch.device("CUDA")`` is refused), so ``"CUDA"`` is a label for people, as in an
    environment report."""
    value = string_value(node)
    if value is not None:
        return named_device(value, whole=True)
    start = _leading_text(node)
    whole = isinstance(node, cst.FormattedString) and len(node.parts) == 1  # ``f"cuda"``: all fixed text
    return named_device(start, whole) if start is not None else None


def _leading_text(node: cst.BaseExpression) -> str | None:
    """The fixed text a string built at run time starts with: an f-string's first part, the left
    operand of ``+`` or ``%``, the receiver of ``.format``."""
    if isinstance(node, cst.FormattedString):
        first = node.parts[0] if node.parts else None
        return first.value if isinstance(first, cst.FormattedStringText) else None
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add | cst.Modulo):
        return string_value(node.left) or (
            _leading_text(node.left) if isinstance(node.operator, cst.Add) else None
        )
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "format":
        return string_value(node.func.value)
    return None


def is_non_cpu_device_string(node: cst.BaseExpression) -> bool:
    """``"cuda"``, ``"mps:0"``, ``f"cuda:{i}"``: a literal naming a device other than the CPU."""
    return device_text(node) in NON_CPU_DEVICES


def is_literal(node: cst.BaseExpression, name: str) -> bool:
    """``True``/``False``/``None`` spelt literally."""
    return isinstance(node, cst.Name) and node.value == name


def int_value(node: cst.BaseExpression) -> int | None:
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    if (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, cst.Integer)
    ):
        return -int(node.expression.evaluated_value)
    return None


def method_name(call: cst.Call) -> str | None:
    """``m`` for a call ``<expr>.m(...)``."""
    return call.func.attr.value if isinstance(call.func, cst.Attribute) else None


def keyword(call: cst.Call, name: str) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def positional(call: cst.Call) -> list[cst.Arg]:
    return [arg for arg in call.args if arg.keyword is None and not arg.star]


def is_reference(ctx: FileContext, node: cst.Name | cst.Attribute) -> bool:
    """Whether ``node`` (the node being visited) is the outermost dotted name read in an expression.

    Excludes the attribute part of ``x.attr``, inner links of ``a.b.c``, import aliases and modules
    (their outermost name's parent is the alias or the import), definition names, parameter names and
    keyword-argument names.
    """
    parent = ctx.parent
    kind = type(parent)  # LibCST node types are final; ``type() in`` is much cheaper than isinstance
    if kind in _NAME_HOLDERS:
        return False
    if kind is cst.FunctionDef or kind is cst.ClassDef or kind is cst.Param:
        return parent.name is not node  # type: ignore[union-attr]
    return not (kind is cst.Arg and parent.keyword is node)  # type: ignore[union-attr]


#: Parents under which a name is never a read of an imported value (attribute part, import alias).
_NAME_HOLDERS = frozenset({cst.Attribute, cst.ImportAlias, cst.AsName, cst.ImportFrom, cst.Import})


def is_torch_name(qualname: str | None, *prefixes: str) -> bool:
    """Whether ``qualname`` is one of ``prefixes`` or lies inside one of them."""
    if qualname is None:
        return False
    return any(qualname == p or qualname.startswith(p + ".") for p in prefixes)


def source_of(node: cst.CSTNode) -> str:
    """The code of a node, for messages."""
    return _EMPTY_MODULE.code_for_node(node)


_EMPTY_MODULE = cst.Module(body=[])


def root_name(node: cst.BaseExpression | None) -> str | None:
    """The name a chain of attributes, calls and subscripts starts from: ``x`` for ``x[0].float().shape``."""
    while isinstance(node, cst.Attribute | cst.Call | cst.Subscript):
        node = node.func if isinstance(node, cst.Call) else node.value
    return node.value if isinstance(node, cst.Name) else None


def isinstance_test(node: cst.BaseExpression) -> tuple[str, cst.BaseExpression] | None:
    """The name and the type a test ``isinstance(name, T)`` checks, else None."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "isinstance"):
        return None
    args = node.args
    if len(args) != 2 or not isinstance(args[0].value, cst.Name):
        return None
    return args[0].value.value, args[1].value


def self_attribute(value: cst.BaseExpression) -> str | None:
    """The attribute of ``self`` an expression reads from: ``w`` for ``self.w``, ``conv`` for
    ``self.conv[0].weight.data``; None when it does not start at ``self``."""
    while isinstance(value, cst.Subscript | cst.Attribute | cst.Call):
        if isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name) and value.value.value == "self":
            return value.attr.value
        value = value.func if isinstance(value, cst.Call) else value.value
    return None


def conjuncts(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The parts of an ``and`` chain, each of which holds whenever the branch runs: ``fast`` and
    ``device != "cpu"`` in ``if fast and device != "cpu":``; the test itself otherwise."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return [*conjuncts(test.left), *conjuncts(test.right)]
    return [test]
