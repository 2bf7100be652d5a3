"""The dtype a value is known to have, from what its code spells, and arrays ``.astype`` made.

A dtype is known when the expression sets it: ``a.astype(np.float32)``, ``dtype=`` given to a NumPy or
torch function, a tensor cast (``t.float()``, ``t.to(torch.float16)``), or a constructor's documented
default (``np.zeros(3)`` is float64, ``torch.zeros(3)`` float32); views and reshapes keep their
receiver's dtype, and a name is followed to the value it was last bound to. NumPy and torch spell
the same dtype differently (``np.float64``, ``torch.double``, ``float``): every spelling maps to
NumPy's name (``"float64"``), so a NumPy array's dtype compares with a ``dtype=`` given to torch.
Anything else is unknown (None): a rule that needs two dtypes to differ, or to match, asks for both.
"""

from __future__ import annotations

import libcst as cst

from torchperf_lint.context import FileContext
from torchperf_lint.toolkit import writes
from torchperf_lint.toolkit.matching import keyword, method_name, positional, string_value

_NUMPY_NAMES = {
    "float16": "float16",
    "half": "float16",
    "float32": "float32",
    "single": "float32",
    "float64": "float64",
    "double": "float64",
    "float_": "float64",
    "int8": "int8",
    "byte": "int8",
    "uint8": "uint8",
    "ubyte": "uint8",
    "int16": "int16",
    "short": "int16",
    "uint16": "uint16",
    "int32": "int32",
    "intc": "int32",
    "uint32": "uint32",
    "int64": "int64",
    "int_": "int64",
    "longlong": "int64",
    "uint64": "uint64",
    "bool_": "bool",
    "bool": "bool",
    "complex64": "complex64",
    "complex128": "complex128",
    # NumPy's type codes, as strings
    **{f"f{size}": f"float{8 * size}" for size in (2, 4, 8)},
    **{f"i{size}": f"int{8 * size}" for size in (1, 2, 4, 8)},
    **{f"u{size}": f"uint{8 * size}" for size in (1, 2, 4, 8)},
}
_TORCH_NAMES = {
    "float16": "float16",
    "half": "float16",
    "bfloat16": "bfloat16",
    "float32": "float32",
    "float": "float32",
    "float64": "float64",
    "double": "float64",
    "int8": "int8",
    "uint8": "uint8",
    "int16": "int16",
    "short": "int16",
    "int32": "int32",
    "int": "int32",
    "int64": "int64",
    "long": "int64",
    "bool": "bool",
    "complex64": "complex64",
    "cfloat": "complex64",
    "complex128": "complex128",
    "cdouble": "complex128",
}
#: Python types as dtypes, as NumPy and torch both read them.
_BUILTIN_NAMES = {"float": "float64", "int": "int64", "bool": "bool", "complex": "complex128"}
#: Tensor methods that cast to one dtype.
_CASTS = {
    "float": "float32",
    "double": "float64",
    "half": "float16",
    "bfloat16": "bfloat16",
    "long": "int64",
    "int": "int32",
    "short": "int16",
    "char": "int8",
    "byte": "uint8",
    "bool": "bool",
}
#: Methods whose result has the receiver's dtype.
_KEEPING_DTYPE = frozenset(
    "reshape view ravel flatten squeeze unsqueeze transpose permute swapaxes copy clone contiguous detach".split()
)
#: Constructors whose default dtype is the floating default: NumPy's float64, torch's float32.
_FLOAT_DEFAULTS = {
    **{f"numpy.{name}": "float64" for name in "zeros ones empty eye identity linspace".split()},
    **{f"numpy.random.{name}": "float64" for name in "rand randn random".split()},
    **{f"torch.{name}": "float32" for name in "zeros ones empty eye rand randn linspace".split()},
}
#: How far a name is followed to the value it was bound to (``a = b``, ``b = x.astype(...)``).
_DEPTH = 4


def dtype_name(ctx: FileContext, node: cst.BaseExpression) -> str | None:
    """NumPy's name for the dtype ``node`` spells (``np.float32``, ``torch.float``, ``"uint8"``, ``float``)."""
    text = string_value(node)
    if text is not None:
        return _NUMPY_NAMES.get(text)
    if not isinstance(node, cst.Name | cst.Attribute):
        return None
    qualname = ctx.qualname(node)
    if qualname is None:
        return _BUILTIN_NAMES.get(node.value) if isinstance(node, cst.Name) else None
    namespace, _, name = qualname.rpartition(".")
    if namespace == "numpy":
        return _NUMPY_NAMES.get(name)
    return _TORCH_NAMES.get(name) if namespace == "torch" else None


def dtype_of(ctx: FileContext, node: cst.BaseExpression, call: cst.Call, depth: int = _DEPTH) -> str | None:
    """The dtype ``node`` is known to have where ``call`` (the visited node, around it) reads it."""
    if isinstance(node, cst.Name):
        # each value that may reach the call must give the same dtype (``f = randn(n)`` in one arm of
        # a chain and ``np.zeros(n, dtype=np.float32)`` in another leave it unknown)
        values = writes.reaching_values(ctx, node.value, call) if depth else []
        found = {dtype_of(ctx, value, call, depth - 1) if value is not None else None for value in values}
        return found.pop() if len(found) == 1 else None
    if not isinstance(node, cst.Call):
        return None
    method = method_name(node)
    given = keyword(node, "dtype")
    if method == "astype" or method in ("to", "type"):
        args = positional(node)
        spelled = given.value if given is not None else args[0].value if args else None
        found = dtype_name(ctx, spelled) if spelled is not None else None
        if found is not None or method == "astype":
            return found
    if method in _CASTS and not node.args:
        return _CASTS[method]
    if method in _KEEPING_DTYPE:
        return dtype_of(ctx, node.func.value, call, depth)  # type: ignore[attr-defined]
    qualname = ctx.qualname(node.func) if isinstance(node.func, cst.Name | cst.Attribute) else None
    if qualname is None or not qualname.startswith(("numpy.", "torch.")):
        return None
    if given is not None:
        return dtype_name(ctx, given.value)
    return _FLOAT_DEFAULTS.get(qualname)


def from_astype(ctx: FileContext, node: cst.BaseExpression, call: cst.Call) -> bool:
    """Whether ``node`` holds an array ``.astype`` made (``a.astype(np.float32)``, a reshape or view of
    one, or a name last bound to one) where ``call`` (the visited node, around it) reads it: NumPy's
    ``astype`` returns an array whatever it was called on, a new one unless told ``copy=False``."""
    if isinstance(node, cst.Name):
        node = writes.bound_value(ctx, node.value, call) or node
    while isinstance(node, cst.Call) and method_name(node) in _KEEPING_DTYPE:
        node = node.func.value  # type: ignore[attr-defined]
    return isinstance(node, cst.Call) and method_name(node) == "astype"
