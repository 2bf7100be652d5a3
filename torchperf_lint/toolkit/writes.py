"""What is written: the names a block writes in place, hands on, returns or reads through a view.

One pass over a block (a function body, or a loop body) records, per name:

- ``written``: ``y[...] = v``, ``y[...] op= v``, ``y op= v``, ``y.attr op= v``, ``y.op_()``,
  ``y[...].op_()``, ``y.attr.op_()``, ``f(y, inplace=True)``, ``f(..., out=y)``;
- ``kept``: passed to a container method (``items.append(y)``), or stored as an attribute or item
  (``self.y = y``, ``table[k] = y``): the value outlives the statement on purpose;
- ``returned``: returned or yielded, alone or inside a tuple, list or dict;
- ``viewed``: read by an operation that needs contiguous memory (``y.view(...)``,
  ``torch.view_as_complex(y)``, a compiled extension under ``torch.ops``);
- ``passed``: handed to a function this file cannot see into (``helper(y)``, ``obj.update(y)``),
  which may write it: torch functions, tensor methods and pure builtins are known readers.

Rules ask these facts of a name instead of re-walking the function for each finding.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from torchperf_lint.context import FileContext
from torchperf_lint.toolkit.traversal import walk

#: Container methods that keep their argument: the value is stored, not just read.
KEEPING_METHODS = frozenset(
    {
        "append",
        "extend",
        "insert",
        "add",
        "appendleft",
        "setdefault",
        "put",
        "register_buffer",
        "register_parameter",
    }
)
#: Container methods that change the container a name holds.
MUTATING_METHODS = KEEPING_METHODS | frozenset({"pop", "remove", "clear", "update", "sort", "reverse"})
#: Tensor methods that need contiguous memory (or strides a view can express).
VIEW_METHODS = frozenset({"view"})
_VIEW_FUNCTIONS = frozenset({"torch.view_as_complex", "torch.view_as_real"})
#: Builtins that only read their arguments.
_READING_BUILTINS = frozenset(
    "len isinstance issubclass print repr str int float bool tuple list min max sum any all zip enumerate "
    "range getattr hasattr type id hash sorted reversed abs round divmod iter next format".split()
)
#: Builtins that regroup the very objects they are given: ``tuple(zip(outputs, tokens))``.
_REGROUPING = frozenset({"tuple", "list", "zip"})
#: Methods whose result shares the receiver's memory: returning one returns the receiver's storage.
SHARING_METHODS = frozenset(
    "view reshape flatten unflatten unsqueeze squeeze permute transpose movedim expand detach narrow select "
    "numpy contiguous".split()
)


@dataclass
class Writes:
    written: set[str] = field(default_factory=set)
    kept: set[str] = field(default_factory=set)
    returned: set[str] = field(default_factory=set)
    viewed: set[str] = field(default_factory=set)
    #: Names whose container contents change (``items.append(x)``), for loop-invariance.
    mutated: set[str] = field(default_factory=set)
    passed: set[str] = field(default_factory=set)


def of(ctx: FileContext, block: cst.CSTNode) -> Writes:
    """The writes of ``block`` (not entering nested functions), computed once per block."""
    key = ("writes", id(block))
    found = ctx.facts.get(key)
    if found is None:
        found = ctx.facts[key] = _collect(ctx, block)
    return found  # type: ignore[return-value]


def base_name(node: cst.BaseExpression | None) -> str | None:
    """``y`` for ``y``, ``y[...]``, ``y.attr`` and chains of them (not calls: ``f(y)[0]`` is new)."""
    while isinstance(node, cst.Subscript | cst.Attribute):
        node = node.value
    return node.value if isinstance(node, cst.Name) else None


def _collect(ctx: FileContext, block: cst.CSTNode) -> Writes:
    facts = Writes()
    writers = _local_writers(ctx, block)
    for node in walk(block, into_functions=False):
        kind = type(node)
        if kind is cst.Call:
            _call(ctx, node, facts)  # type: ignore[arg-type]
            _local_call(node, writers, facts)  # type: ignore[arg-type]
        elif kind is cst.Assign:
            for target in node.targets:  # type: ignore[attr-defined]
                _store(target.target, node.value, facts)  # type: ignore[attr-defined]
        elif kind is cst.AnnAssign:
            _store(node.target, node.value, facts)  # type: ignore[attr-defined]
        elif kind is cst.AugAssign:
            name = base_name(node.target)  # type: ignore[attr-defined]
            if name is not None:
                facts.written.add(name)
        elif kind is cst.Return or kind is cst.Yield:
            facts.returned.update(_names_in_value(node.value))  # type: ignore[attr-defined]
    return facts


def _store(target: cst.BaseExpression, value: cst.BaseExpression | None, facts: Writes) -> None:
    if isinstance(target, cst.Subscript):
        name = base_name(target)
        if name is not None:
            facts.written.add(name)
    if isinstance(target, cst.Subscript | cst.Attribute) and value is not None:
        facts.kept.update(_names_in_value(value))


def _call(ctx: FileContext, call: cst.Call, facts: Writes) -> None:
    func = call.func
    if isinstance(func, cst.Attribute):
        method = func.attr.value
        receiver = base_name(func.value)
        if receiver is not None:
            if method.endswith("_") and not method.endswith("__"):
                facts.written.add(receiver)
            elif method in MUTATING_METHODS:
                facts.mutated.add(receiver)
            elif method in VIEW_METHODS and isinstance(func.value, cst.Name):
                facts.viewed.add(receiver)
        if method in KEEPING_METHODS:
            for arg in call.args:
                facts.kept.update(_names_in_value(arg.value))
    for arg in call.args:
        keyword = arg.keyword.value if arg.keyword is not None else None
        if keyword == "out":
            facts.written.update(_names_in_value(arg.value))
        elif keyword == "inplace" and not (isinstance(arg.value, cst.Name) and arg.value.value == "False"):
            facts.written.update(n for a in call.args if a.keyword is None and (n := base_name(a.value)))
    qualname = ctx.qualname(func) if isinstance(func, cst.Name | cst.Attribute) else None
    if qualname is not None and (qualname in _VIEW_FUNCTIONS or qualname.startswith("torch.ops.")):
        facts.viewed.update(n for a in call.args if isinstance(a.value, cst.Name) and (n := a.value.value))
    if not reads_only(ctx, call):
        facts.passed.update(n for a in call.args for n in _names_in_value(a.value))


def reads_only(ctx: FileContext, call: cst.Call) -> bool:
    """Whether ``call`` is known not to write its arguments: a torch function (in-place variants
    aside), a pure builtin, or a method of a container or tensor that only reads (``a.index(y)``)."""
    func = call.func
    if isinstance(func, cst.Name) and func.value in _READING_BUILTINS and ctx.qualname(func) is None:
        return True
    qualname = ctx.qualname(func) if isinstance(func, cst.Name | cst.Attribute) else None
    if qualname is not None:
        name = qualname.rpartition(".")[2]
        return qualname.startswith("torch.") and not qualname.startswith("torch.ops.") and not name.endswith("_")
    return isinstance(func, cst.Attribute) and func.attr.value in KNOWN_READING_METHODS


#: Methods that read their arguments: tensor arithmetic and comparisons, and a few container queries.
KNOWN_READING_METHODS = frozenset(
    "add sub mul div matmul mm bmm pow eq ne lt le gt ge where masked_fill index_select gather expand_as "
    "view_as reshape_as type_as to copy_ index count get startswith endswith format join".split()
)


def _local_writers(ctx: FileContext, block: cst.CSTNode) -> dict[str, tuple[int, ...]]:
    """Functions defined directly in ``block`` (``def norm_ip(img): img.clamp_(0, 1)``), each with the
    positions of the parameters it writes in place."""
    found: dict[str, tuple[int, ...]] = {}
    for node in getattr(block, "body", ()):
        if isinstance(node, cst.FunctionDef):
            names = [param.name.value for param in node.params.params]
            written = of(ctx, node.body).written
            positions = tuple(i for i, name in enumerate(names) if name in written)
            if positions:
                found[node.name.value] = positions
    return found


def _local_call(call: cst.Call, writers: dict[str, tuple[int, ...]], facts: Writes) -> None:
    if not (isinstance(call.func, cst.Name) and call.func.value in writers):
        return
    args = [arg for arg in call.args if arg.keyword is None and not arg.star]
    for position in writers[call.func.value]:
        if position < len(args) and (name := base_name(args[position].value)) is not None:
            facts.written.add(name)


def _names_in_value(value: cst.BaseExpression | None) -> set[str]:
    """Names a value is made of: a name, a chain of sharing methods on one (``y.unsqueeze(0)``), or a
    literal tuple, list or dict of those."""
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in _REGROUPING:
        return {n for arg in value.args for n in _names_in_value(arg.value)}
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
        if value.func.attr.value not in SHARING_METHODS:
            return set()
        value = value.func.value
    if isinstance(value, cst.Name):
        return {value.value}
    if isinstance(value, cst.Tuple | cst.List | cst.Set):
        return {n for element in value.elements for n in _names_in_value(element.value)}
    if isinstance(value, cst.Dict):
        return {
            n
            for element in value.elements
            if isinstance(element, cst.DictElement)
            for n in _names_in_value(element.value)
        }
    return set()
