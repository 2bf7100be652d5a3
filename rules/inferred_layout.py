"""TPL006: a layout guessed from shape sizes instead of passed explicitly."""

from __future__ import annotations

import re

import libcst as cst

from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit.matching import int_value, method_name, source_of, string_value, walk

#: Sizes that look like a channel count; 0 (an empty check) is deliberately absent.
_CHANNEL_LIKE = frozenset({1, 2, 3, 4})
_LAYOUT_NAMES = frozenset(
    {"NCHW", "NHWC", "CHW", "HWC", "NCDHW", "NDHWC", "CDHW", "DHWC", "NCL", "NLC", "NCW", "NWC"}
)
_LAYOUT_METHODS = frozenset({"permute", "transpose", "movedim", "moveaxis", "swapaxes", "swapdims"})
_MEMORY_FORMATS = frozenset({"torch.channels_last", "torch.channels_last_3d", "torch.contiguous_format"})
_LAYOUT_TARGET = re.compile(r"layout|channels?_(axis|dim|last|first)|data_format", re.IGNORECASE)
_SMALL_BOUND = {cst.LessThan: 5, cst.LessThanEqual: 4, cst.GreaterThan: 0, cst.GreaterThanEqual: 1}


class InferredLayout(Rule):
    code = "TPL006"
    name = "inferred-layout"
    summary = "A layout inferred from shape sizes"
    message = "`{what}` infers a layout from a size; take the layout as an explicit argument"
    why = (
        "A volume with three depth slices looks like three channels. Guessing `CDHW` against "
        "`DHWC` or `NCHW` against `CDHW` from sizes silently transposes real data, and the guess "
        "differs between calls of one pipeline. The layout is an argument or follows from the "
        "container and rank."
    )
    example = "if volume.shape[-1] == 3:\n    volume = volume.permute(3, 0, 1, 2)"
    use_instead = 'if layout == "DHWC":\n    volume = volume.permute(3, 0, 1, 2)'
    notes = (
        "Flagged: a comparison of `x.shape[i]`, `x.size(i)` or a name unpacked from a shape with "
        "a channel-like size (1 to 4, or a small range) whose branch permutes or transposes, sets a "
        "memory format, names a layout, or assigns a layout-like name. Rank checks, empty checks, "
        "shape equality and size-based routing whose branch does none of these (folding a batch "
        "when `n >= 4 and c == 1` under an explicit layout) are not flagged."
    )
    valid = (
        "import torch\ndef f(x):\n    if x.ndim == 5:\n        x = x.permute(0, 2, 3, 4, 1)\n",
        "import torch\ndef f(x):\n    if x.shape[0] == 0:\n        return x.permute(1, 0)\n",
        "import torch\ndef f(x, y):\n    if x.shape[1] == y.shape[1]:\n        x = x.permute(1, 0)\n",
        "import torch\ndef f(v, layout):\n    n, c = v.shape[:2]\n    if n >= 4 and c == 1:\n"
        "        return fold(v.reshape(1, n, *v.shape[2:]))\n",
        "import torch\ndef f(x, layout):\n    if layout == 'DHWC':\n        x = x.permute(3, 0, 1, 2)\n",
        "import torch\ndef f(img):\n    if img.shape[-1] == 1:\n        return img[..., 0]\n",
    )
    invalid = (
        Invalid(
            "import torch\ndef f(x):\n    if x.shape[-1] == 3:\n        x = x.permute(3, 0, 1, 2)\n",
            ((3, 8),),
        ),
        Invalid(
            "import torch\ndef f(x):\n    if x.size(1) in (1, 3):\n        layout = 'NCHW'\n",
            ((3, 8),),
        ),
        Invalid(
            "import torch\ndef f(x):\n    c = x.shape[0]\n    fmt = 'CDHW' if c <= 4 else 'DHWC'\n",
            ((4, 21),),
        ),
        Invalid("import torch\ndef f(x):\n    channels_last = x.shape[-1] == 3\n", ((3, 21),)),
        Invalid(
            "import torch\ndef f(x):\n    if x.shape[1] == 3:\n"
            "        x = x.contiguous(memory_format=torch.channels_last)\n",
            ((3, 8),),
        ),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._size_names: set[str] = set()

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if _is_shape_source(node.value) and isinstance(target.target, cst.Tuple | cst.List):
                for element in target.target.elements:
                    if isinstance(element.value, cst.Name):
                        self._size_names.add(element.value.value)
            elif isinstance(target.target, cst.Name) and self._is_size(node.value):
                self._size_names.add(target.target.value)
        if any(isinstance(t.target, cst.Name) and _LAYOUT_TARGET.search(t.target.value) for t in node.targets):
            self._report_guesses(node.value)

    def visit_If(self, node: cst.If) -> None:
        branches: list[cst.CSTNode] = [node.body]
        if isinstance(node.orelse, cst.Else):
            branches.append(node.orelse.body)
        if any(_has_layout_effect(self.ctx, branch) for branch in branches):
            self._report_guesses(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        if _has_layout_effect(self.ctx, node.body) or _has_layout_effect(self.ctx, node.orelse):
            self._report_guesses(node.test)

    def _report_guesses(self, test: cst.BaseExpression) -> None:
        for found in walk(test, into_functions=False):
            if isinstance(found, cst.Comparison) and self._is_guess(found):
                self.report(found, what=source_of(found))

    def _is_guess(self, comparison: cst.Comparison) -> bool:
        left = comparison.left
        for target in comparison.comparisons:
            right = target.comparator
            if self._is_size(left) and _is_channel_like(target.operator, right):
                return True
            if self._is_size(right) and _is_channel_like(_mirror(target.operator), left):
                return True
            left = right
        return False

    def _is_size(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Name):
            return node.value in self._size_names
        if isinstance(node, cst.Subscript) and len(node.slice) == 1:
            index = node.slice[0].slice
            if isinstance(index, cst.Index) and int_value(index.value) is not None:
                return _is_shape_source(node.value)
        if isinstance(node, cst.Call) and method_name(node) == "size" and len(node.args) == 1:
            return int_value(node.args[0].value) is not None
        return False


def _is_shape_source(node: cst.BaseExpression) -> bool:
    """``x.shape``, ``x.size()`` or a slice of either."""
    if isinstance(node, cst.Subscript):
        node = node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value == "shape"
    return isinstance(node, cst.Call) and method_name(node) == "size" and not node.args


def _is_channel_like(operator: cst.BaseCompOp, other: cst.BaseExpression) -> bool:
    if isinstance(operator, cst.Equal | cst.NotEqual):
        return int_value(other) in _CHANNEL_LIKE
    if isinstance(operator, cst.In | cst.NotIn) and isinstance(other, cst.Tuple | cst.List | cst.Set):
        values = [int_value(e.value) for e in other.elements]
        return bool(values) and all(v in _CHANNEL_LIKE for v in values)
    bound = _SMALL_BOUND.get(type(operator))
    value = int_value(other)
    if bound is None or value is None:
        return False
    if isinstance(operator, cst.LessThan | cst.LessThanEqual):
        return 1 < value <= bound
    return False


def _mirror(operator: cst.BaseCompOp) -> cst.BaseCompOp:
    mirrored = {
        cst.LessThan: cst.GreaterThan,
        cst.GreaterThan: cst.LessThan,
        cst.LessThanEqual: cst.GreaterThanEqual,
        cst.GreaterThanEqual: cst.LessThanEqual,
    }.get(type(operator))
    return mirrored() if mirrored is not None else operator


def _has_layout_effect(ctx, node: cst.CSTNode) -> bool:
    for found in walk(node, into_functions=False):
        if isinstance(found, cst.Call) and method_name(found) in _LAYOUT_METHODS:
            return True
        if isinstance(found, cst.Arg) and found.keyword is not None:
            if found.keyword.value == "memory_format":
                return True
        if isinstance(found, cst.SimpleString) and string_value(found) in _LAYOUT_NAMES:
            return True
        if isinstance(found, cst.Attribute) and ctx.qualname(found) in _MEMORY_FORMATS:
            return True
        if isinstance(found, cst.AssignTarget) and isinstance(found.target, cst.Name):
            if _LAYOUT_TARGET.search(found.target.value):
                return True
    return False
