"""TPL006: a layout guessed from shape sizes instead of passed explicitly."""

from __future__ import annotations

import re
from collections.abc import Sequence

import libcst as cst

from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit.exemptions import test_files
from torchperf_lint.toolkit.flow import ends_with
from torchperf_lint.toolkit.matching import (
    int_value,
    keyword,
    method_name,
    positional,
    root_name,
    source_of,
    string_value,
    walk,
)

#: Sizes that look like a channel count. 0 (an empty check) is absent, and so is 1: a size-1 axis
#: holds no layout (a reshape moves it anywhere), so testing for it picks a fast path, not a layout.
_CHANNEL_LIKE = frozenset({2, 3, 4})
_LAYOUT_NAMES = frozenset(
    {"NCHW", "NHWC", "CHW", "HWC", "NCDHW", "NDHWC", "CDHW", "DHWC", "NCL", "NLC", "NCW", "NWC"}
)
_LAYOUT_METHODS = frozenset({"permute", "transpose", "movedim", "moveaxis", "swapaxes", "swapdims"})
_LAYOUT_TARGET = re.compile(r"layout|channels?_(axis|dim|last|first)|data_format", re.IGNORECASE)
_NOT_A_SIZE = object()
_SMALL_BOUND = {cst.LessThan: 5, cst.LessThanEqual: 4, cst.GreaterThan: 0, cst.GreaterThanEqual: 1}


class InferredLayout(Rule):
    code = "TPL006"
    fix_safety = (
        "No fix: replacing a size test with a layout argument changes the function's signature and every caller."
    )
    name = "inferred-layout"
    hint = "Take layout as a keyword argument and branch on it, not on a size."
    summary = "A layout inferred from shape sizes, strides or contiguity"
    message = "`{what}` infers a layout from {evidence}; take the layout as an explicit argument"
    why = (
        "A volume with three depth slices looks like three channels. Guessing `CDHW` against "
        "`DHWC` or `NCHW` against `CDHW` from sizes silently transposes real data, and the guess "
        "differs between calls of one pipeline. The layout is an argument or follows from the "
        "container and rank."
    )
    example = "if volume.shape[-1] == 3:\n    volume = volume.permute(3, 0, 1, 2)"
    use_instead = 'if layout == "DHWC":\n    volume = volume.permute(3, 0, 1, 2)'
    notes = (
        "Flagged: a comparison of `x.shape[i]`, `x.size(i)` or a name unpacked from a shape with a "
        "channel-like size (2 to 4, or a small range), a stride test (`x.stride(1) == 1`) or a "
        "contiguity test (`x.is_contiguous(memory_format=torch.channels_last)`). A size test is "
        "flagged when its branch permutes or transposes that same tensor, names a layout, or assigns a "
        "layout-like name; a stride or contiguity test when its branch names a layout or assigns a "
        "layout-like name. Exempt: size-1 tests (`channels == 1`), since a size-1 axis has no layout and "
        "choosing a reshape over a permute for it is a fast path; tests whose other arm only raises, "
        "which are validation; branches that only pick a storage order, a permute round trip after a "
        "stride test or a memory format after a size test (`if n_channels < 4: memory_format = "
        "torch.contiguous_format` on an input whose axis 1 is channels), since a memory format changes "
        "how the same axes are laid out in memory, not what they mean; rank checks, empty checks, shape "
        "equality and size-based routing whose branch does none of the above (folding a batch when "
        "`n >= 4 and c == 1` under an explicit layout)."
    ) + test_files(
        "tests branch on sizes to build inputs of each layout and to check the results, which is setting"
        " up cases, not a kernel guessing what its input means"
    )
    valid = (
        "import torch\ndef f(x):\n    if x.ndim == 5:\n        x = x.permute(0, 2, 3, 4, 1)\n",
        "import torch\ndef f(x):\n    if x.shape[0] == 0:\n        return x.permute(1, 0)\n",
        "import torch\ndef f(x, y):\n    if x.shape[1] == y.shape[1]:\n        x = x.permute(1, 0)\n",
        "import torch\ndef f(v, layout):\n    n, c = v.shape[:2]\n    if n >= 4 and c == 1:\n"
        "        return fold(v.reshape(1, n, *v.shape[2:]))\n",
        "import torch\ndef f(x, layout):\n    if layout == 'DHWC':\n        x = x.permute(3, 0, 1, 2)\n",
        "import torch\ndef f(img):\n    if img.shape[-1] == 1:\n        return img[..., 0]\n",
        "import torch\ndef f(work):\n    n, c = work.shape[:2]\n    if c == 1:\n"
        "        return sample(work.view(1, n, 4, 4)).view(n, 4, 1, 4).transpose(1, 2)\n",
        "import torch\ndef f(volumes, n, d, c):\n    if c == 1:\n"
        "        planes = volumes.reshape(1, n * d, 8, 8)\n    else:\n"
        "        planes = volumes.permute(0, 2, 1, 3, 4).reshape(n * d, c, 8, 8)\n    return planes\n",
        "import torch\ndef f(v, c):\n    planes = v if c == 1 else v.permute(1, 0, 2, 3)\n",
        "import torch\ndef f(x):\n    if x.shape[1] != 3:\n"
        "        raise ValueError('expected NCHW with 3 channels')\n"
        "    return x.permute(0, 2, 3, 1)\n",
        "import torch\ndef f(x):\n    if x.stride(-1) == 1:\n        return fast(x)\n    return slow(x)\n",
        "import torch\ndef f(x):\n    if x.shape[1] == 3:\n"
        "        x = x.contiguous(memory_format=torch.channels_last)\n    return x\n",
        "import torch\ndef f(input, result):\n    memory_format = suggest_memory_format(input)\n"
        "    n_channels = input.shape[1]\n    if result.ndim == 4 and n_channels < 4:\n"
        "        memory_format = torch.contiguous_format\n"
        "    return result.contiguous(memory_format=memory_format)\n",
        "import torch\ndef f(v):\n    if v.shape[0] > 1 and v.stride(0) == 1:\n"
        "        return torch.from_numpy(pad(v.permute(1, 2, 3, 0).numpy())).permute(3, 0, 1, 2)\n",
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
            "import torch\ndef f(x):\n    c = x.size(-1)\n    if c == 3:\n"
            "        return torch.movedim(x, -1, 0)\n",
            ((4, 8),),
        ),
        Invalid(
            "import torch\ndef f(x):\n    if x.stride(1) == 1:\n        channel_axis = -1\n    return x\n",
            ((3, 8),),
        ),
        Invalid(
            "import torch\ndef f(x):\n    if x.is_contiguous(memory_format=torch.channels_last):\n"
            "        layout = 'NHWC'\n",
            ((3, 8),),
        ),
        Invalid(
            "import torch\ndef f(x):\n    if x.shape[-1] in (1, 3):\n        x = x.permute(2, 0, 1)\n"
            "    return x\n",
            ((3, 8),),
        ),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._size_names: dict[str, str | None] = {}  # name -> root name of the tensor it measures

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if _is_shape_source(node.value) and isinstance(target.target, cst.Tuple | cst.List):
                for element in target.target.elements:
                    if isinstance(element.value, cst.Name):
                        self._size_names[element.value.value] = root_name(node.value)
            elif isinstance(target.target, cst.Name) and self._measured(node.value) is not _NOT_A_SIZE:
                self._size_names[target.target.value] = self._measured(node.value)
        if any(isinstance(t.target, cst.Name) and _LAYOUT_TARGET.search(t.target.value) for t in node.targets):
            self._report_guesses(node.value, branches=())

    def visit_If(self, node: cst.If) -> None:
        branches: list[cst.CSTNode] = [node.body]
        if isinstance(node.orelse, cst.Else):
            branches.append(node.orelse.body)
        if any(ends_with(branch, (cst.Raise,)) and len(branch.body) == 1 for branch in branches):
            return  # one arm only raises: the test validates a layout, it does not infer one
        self._report_guesses(node.test, branches)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._report_guesses(node.test, (node.body, node.orelse))

    def _report_guesses(self, test: cst.BaseExpression, branches: Sequence[cst.CSTNode]) -> None:
        """Report channel-like comparisons in ``test`` whose ``branches`` act on the layout.

        With no branches (a layout-like name is being assigned) the assignment itself is the effect.
        """
        for found in walk(test, into_functions=False):
            if not isinstance(found, cst.Comparison):
                continue
            measured = self._guessed_tensor(found)
            if measured is _NOT_A_SIZE:
                continue
            if not branches or any(_has_layout_effect(branch, measured) for branch in branches):
                self.report(found, what=source_of(found), evidence="a size")
        for found in walk(test, into_functions=False):
            evidence = _memory_test(found)
            if evidence is None:
                continue
            if not branches or any(_names_layout(branch) for branch in branches):
                self.report(found, what=source_of(found), evidence=evidence)

    def _guessed_tensor(self, comparison: cst.Comparison) -> str | None | object:
        """The root name of the tensor a channel-like size comparison measures, or ``_NOT_A_SIZE``."""
        left = comparison.left
        for target in comparison.comparisons:
            right = target.comparator
            for size, other, operator in ((left, right, target.operator), (right, left, _mirror(target.operator))):
                if _is_channel_like(operator, other):
                    measured = self._measured(size)
                    if measured is not _NOT_A_SIZE:
                        return measured
            left = right
        return _NOT_A_SIZE

    def _measured(self, node: cst.BaseExpression) -> str | None | object:
        """For a size expression, the root name of the tensor it measures; else ``_NOT_A_SIZE``."""
        if isinstance(node, cst.Name):
            return self._size_names.get(node.value, _NOT_A_SIZE)
        if isinstance(node, cst.Subscript) and len(node.slice) == 1:
            index = node.slice[0].slice
            if (
                isinstance(index, cst.Index)
                and int_value(index.value) is not None
                and _is_shape_source(node.value)
            ):
                return root_name(node.value)
        if isinstance(node, cst.Call) and method_name(node) == "size" and len(node.args) == 1:
            if int_value(node.args[0].value) is not None:
                return root_name(node)
        return _NOT_A_SIZE


def _memory_test(node: cst.CSTNode) -> str | None:
    """``"strides"`` for ``x.stride(i) == k``, ``"memory contiguity"`` for
    ``x.is_contiguous(memory_format=...)``; None for anything else."""
    if isinstance(node, cst.Comparison):
        left = node.left
        if isinstance(left, cst.Call) and method_name(left) == "stride" and len(left.args) == 1:
            return "strides"
        return None
    if isinstance(node, cst.Call) and method_name(node) == "is_contiguous" and keyword(node, "memory_format"):
        return "memory contiguity"
    return None


def _names_layout(node: cst.CSTNode) -> bool:
    """Whether ``node`` decides what the axes mean: a layout name, or a layout-like name assigned.

    A stride or contiguity test whose branch only permutes picks a storage order for the same
    axes (a round trip through a channels-last view), which is routing, not inference.
    """
    for found in walk(node, into_functions=False):
        if isinstance(found, cst.SimpleString) and string_value(found) in _LAYOUT_NAMES:
            return True
        if isinstance(found, cst.AssignTarget) and isinstance(found.target, cst.Name):
            if _LAYOUT_TARGET.search(found.target.value):
                return True
    return False


def _reorders(call: cst.Call, measured: str) -> bool:
    """``measured.permute(...)`` (any chain rooted at it) or ``torch.permute(measured, ...)``."""
    receiver = call.func.value if isinstance(call.func, cst.Attribute) else None
    if root_name(receiver) == measured:
        return True
    args = positional(call)
    return bool(args) and root_name(args[0].value) == measured


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
        return all(v in _CHANNEL_LIKE or v == 1 for v in values) and any(v in _CHANNEL_LIKE for v in values)
    bound = _SMALL_BOUND.get(type(operator))
    value = int_value(other)
    if bound is None or value is None:
        return False
    if isinstance(operator, cst.LessThan | cst.LessThanEqual):
        return 2 < value <= bound
    return False


def _mirror(operator: cst.BaseCompOp) -> cst.BaseCompOp:
    mirrored = {
        cst.LessThan: cst.GreaterThan,
        cst.GreaterThan: cst.LessThan,
        cst.LessThanEqual: cst.GreaterThanEqual,
        cst.GreaterThanEqual: cst.LessThanEqual,
    }.get(type(operator))
    return mirrored() if mirrored is not None else operator


def _has_layout_effect(node: cst.CSTNode, measured: str | None) -> bool:
    """Whether ``node`` reorders the measured tensor's axes or otherwise commits to a layout.

    Reordering some other tensor (a sampler's output put back in order) is not a guess about the
    measured one, so axis methods count only on the measured root name; layout names and layout-like
    assignments count wherever they appear. A memory format is a storage order of the same axes: it
    does not count.
    """
    for found in walk(node, into_functions=False):
        if isinstance(found, cst.Call) and method_name(found) in _LAYOUT_METHODS:
            if measured is None or _reorders(found, measured):
                return True
        if isinstance(found, cst.SimpleString) and string_value(found) in _LAYOUT_NAMES:
            return True
        if isinstance(found, cst.AssignTarget) and isinstance(found.target, cst.Name):
            if _LAYOUT_TARGET.search(found.target.value):
                return True
    return False
