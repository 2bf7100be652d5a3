"""TPL006: a layout guessed from shape sizes instead of passed explicitly."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

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
from torchperf_lint.toolkit.traversal import children
from torchperf_lint.toolkit.types import project_returns, scope_of
from torchperf_lint.vocabulary import MEASURES

#: Sizes that look like a channel count. 0 (an empty check) is absent, and so is 1: a size-1 axis
#: holds no layout (a reshape moves it anywhere), so testing for it picks a fast path, not a layout.
_CHANNEL_LIKE = frozenset({2, 3, 4})
_LAYOUT_NAMES = frozenset(
    {"NCHW", "NHWC", "CHW", "HWC", "NCDHW", "NDHWC", "CDHW", "DHWC", "NCL", "NLC", "NCW", "NWC"}
)
_LAYOUT_METHODS = frozenset({"permute", "transpose", "movedim", "moveaxis", "swapaxes", "swapdims"})
_LAYOUT_TARGET = re.compile(r"layout|channels?_(axis|dim|last|first)|data_format", re.IGNORECASE)
#: Layout-like names that speak of how the axes are stored, not what they mean.
_STORAGE_TARGET = re.compile(r"channels?_(last|first)|memory_format", re.IGNORECASE)
_NOT_A_SIZE = object()
#: Axis-like names: what a size test assigns to one picks the axis a reduction runs over.
_AXIS_TARGET = re.compile(r"^_*(dims?|axis|axes)$|_(dims?|axis|axes)$", re.IGNORECASE)
_AXIS_KEYWORDS = frozenset({"dim", "dims", "axis", "axes"})
#: Reductions whose first positional argument is the axes they reduce.
_REDUCTIONS = frozenset(
    "sum mean amax amin std var prod argmax argmin median logsumexp nansum nanmean max min any all".split()
)
#: ``x.size()``/``x.stride()`` give a whole shape or stride tuple; with an axis, one entry of it.
_MEASURE_METHODS = {"size": ("shape", "size"), "stride": ("strides", "stride")}
#: What indexing a measure gives.
_ENTRY = {"shape": "size", "strides": "stride"}
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
        "Flagged: a comparison of a size with a channel-like size (2 to 4, or a small range), a stride "
        "test (`x.stride(1) == 1`) or a contiguity test (`x.is_contiguous(memory_format="
        "torch.channels_last)`). A size is `x.shape[i]`, `x.size(i)`, an entry of a shape held in a name "
        "(`shape = x.shape` then `shape[-1]`, or `h, w, c = shape`), or what a function of the project "
        "returns when it returns its argument's shape or one of its sizes (`def channels(x): return "
        "x.shape[-1]`, in this file or another module); a stride is `x.stride(i)` or an entry of "
        "`x.stride()` held or returned the same way. A size test is flagged when its branch permutes or "
        "transposes that same tensor, names a layout, or assigns a layout-like name, or when it picks "
        "which axes of that tensor a reduction runs over (`dim=(0, 1)` in one arm and `dim=(1, 2)` in "
        "the other, or in what follows a branch that returns, as a method's or a function's `dim=`/"
        "`axis=` or a reduction's first axes argument, `torch.amax(x, (0, 1))`; or `dim = -1 if c <= 4 "
        "else 0`); a stride or "
        "contiguity test when its branch names a layout, assigns a layout-like name, picks the axes of "
        "a reduction, or permutes the tensor without putting its axes back. Exempt: size-1 tests "
        "(`channels == 1`), since a size-1 axis has no layout and choosing a reshape over a permute for "
        "it is a fast path; tests whose other arm only raises, which are validation; branches that only "
        "pick a storage order: a permute round trip after a stride test (the permutes, composed, give "
        "the same axes back), a flag named for a memory format (`channels_last = (sc == 1) & ...` from "
        "the strides), or a memory format after a size test (`if n_channels < 4: memory_format = "
        "torch.contiguous_format` on an input whose axis 1 is channels), since a memory format changes "
        "how the same axes are laid out in memory, not what they mean; rank checks (`len(shape) == 3`, "
        "`x.ndim == 5`), empty checks, shape equality, a size choosing a non-axis value (a kernel size), "
        "and size-based routing whose branch does none of the above (folding a batch when `n >= 4 and "
        "c == 1` under an explicit layout, or reducing over the same axis either way)."
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
        "import torch\ndef f(x):\n    shape = x.shape\n    if len(shape) == 3:\n        x = x.permute(2, 0, 1)\n"
        "    return x\n",
        "import torch\ndef _channels(x):\n    return x.shape[-1]\ndef f(x):\n    if _channels(x) == 1:\n"
        "        return x.permute(2, 0, 1)\n    return x\n",
        "import torch\ndef f(x):\n    shape = x.shape\n    if shape[1] <= 4:\n        return x.sum(dim=1)\n"
        "    return x.float().sum(dim=1).to(x.dtype)\n",
        "import torch\ndef f(x, layout):\n    dim = 1 if layout == 'NCHW' else -1\n    return x.amax(dim=dim)\n",
        "import torch\ndef f(x):\n    k = 3 if x.shape[-1] <= 4 else 5\n    return blur(x, k)\n",
        "import torch\ndef f(x):\n    strides = x.stride()\n    if strides[1] == 1:\n"
        "        x = pad(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)\n    return x\n",
        "import torch\ndef f(x, sizes):\n    sn, sc, sh, sw = x.stride()\n"
        "    channels_last = (sc == 1) & (sw == x.shape[1])\n"
        "    return torch.where(channels_last, sizes, sizes + 1)\n",
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
        Invalid(
            "import torch\ndef f(x):\n    shape = x.shape\n    if shape[-1] == 3:\n"
            "        x = x.permute(2, 0, 1)\n"
            "    return x\n",
            ((4, 8),),
        ),
        Invalid(
            "import torch\ndef f(img):\n    shape = img.shape\n    h, w, c = shape\n    if c in (3, 4):\n"
            "        img = img.permute(2, 0, 1)\n    return img\n",
            ((5, 8),),
        ),
        Invalid(
            "import torch\ndef _channels(x):\n    return x.shape[-1]\ndef f(x):\n    if _channels(x) == 3:\n"
            "        x = x.permute(2, 0, 1)\n    return x\n",
            ((5, 8),),
        ),
        Invalid(
            "import torch\ndef f(img):\n    shape = img.shape\n    if shape[-1] <= 4:\n"
            "        return img.mean(dim=(0, 1))\n"
            "    return img.mean(dim=(1, 2))\n",
            ((4, 8),),
        ),
        Invalid(
            "import torch\ndef f(img):\n    dim = -1 if img.shape[-1] <= 4 else 0\n    return img.amax(dim=dim)\n",
            ((3, 17),),
        ),
        Invalid(
            "import torch\ndef f(img):\n    c = img.shape[-1]\n    if c <= 4:\n"
            "        return torch.amax(img, (0, 1))\n"
            "    return torch.amax(img, (1, 2))\n",
            ((4, 8),),
        ),
        Invalid(
            "import torch\ndef _sizes(x):\n    return x.size()\ndef f(img):\n    if _sizes(img)[-1] <= 4:\n"
            "        total = img.sum((0, 1))\n    else:\n        total = img.sum((1, 2))\n    return total\n",
            ((5, 8),),
        ),
        Invalid(
            "import torch\ndef f(x):\n    strides = x.stride()\n    if strides[1] == 1:\n"
            "        x = x.permute(0, 2, 3, 1)\n"
            "    return x\n",
            ((4, 8),),
        ),
        Invalid(
            "import torch\ndef f(x):\n    if x.stride(-1) != 1:\n        y = x.movedim(-1, 1)\n"
            "        return y.transpose(2, 3)\n"
            "    return x\n",
            ((3, 8),),
        ),
        Invalid(
            "import torch\ndef _inner_stride(x):\n    return x.stride(1)\ndef f(x):\n"
            "    if _inner_stride(x) == 1:\n"
            "        x = x.permute(0, 2, 3, 1)\n    return x\n",
            ((5, 8),),
        ),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        #: (id of the scope, name) -> (what the name measures, root name of the tensor measured)
        self._measures: dict[tuple[int, str], tuple[str, str | None]] = {}
        self._measured_names: set[str] = set()  # names that measure something in some scope
        self._reported: set[int] = set()

    def visit_Assign(self, node: cst.Assign) -> None:
        measure = self._measure_of(node.value)
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self._hold(target.target.value, measure)
            elif isinstance(target.target, cst.Tuple | cst.List):
                entry = _ENTRY.get(measure[0]) if measure is not None else None
                held = (entry, measure[1]) if entry is not None and measure is not None else None
                for element in target.target.elements:  # ``h, w, c = shape``: each is a size
                    if isinstance(element.value, cst.Name):
                        self._hold(element.value.value, held)
        names = [t.target.value for t in node.targets if isinstance(t.target, cst.Name)]
        if any(_LAYOUT_TARGET.search(name) for name in names):
            storage = all(_STORAGE_TARGET.search(name) for name in names if _LAYOUT_TARGET.search(name))
            self._report_guesses(node.value, branches=(), storage_only=storage)

    def visit_If(self, node: cst.If) -> None:
        branches: list[cst.CSTNode] = [node.body]
        if isinstance(node.orelse, cst.Else):
            branches.append(node.orelse.body)
        if any(ends_with(branch, (cst.Raise,)) and len(branch.body) == 1 for branch in branches):
            return  # one arm only raises: the test validates a layout, it does not infer one
        arms = [*branches]
        if node.orelse is None and ends_with(node.body, (cst.Return,)):
            arms.append(cst.IndentedBlock(body=self._statements_after(node)))
        self._report_guesses(node.test, branches, arms)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        choices = [_axis_literal(node.body), _axis_literal(node.orelse)]
        picks_axis = None not in choices and choices[0] != choices[1] and self._is_axis_destination(node)
        self._report_guesses(node.test, (node.body, node.orelse), picks_axis=picks_axis)

    def _hold(self, name: str, measure: tuple[str, str | None] | None) -> None:
        """Record what ``name`` measures from here on in the scope being visited (or that it no
        longer measures anything)."""
        if measure is None and name not in self._measured_names:
            return
        self._measured_names.add(name)
        key = (id(scope_of(self.ctx)), name)
        if measure is None:
            self._measures.pop(key, None)
        else:
            self._measures[key] = measure

    def _report_guesses(
        self,
        test: cst.BaseExpression,
        branches: Sequence[cst.CSTNode],
        arms: Sequence[cst.CSTNode] = (),
        picks_axis: bool = False,
        storage_only: bool = False,
    ) -> None:
        """Report channel-like comparisons and stride tests in ``test`` whose ``branches`` act on the
        layout, or whose ``arms`` (the branches, or what runs when a returning branch does not) pick
        different axes of the measured tensor.

        With no branches (a layout-like name is being assigned) the assignment itself is the effect,
        unless the name speaks of a storage order (``channels_last``) and the test reads strides.
        """
        for found in walk(test, into_functions=False):
            if isinstance(found, cst.Comparison):
                measured = self._guessed_tensor(found)
                if measured is not _NOT_A_SIZE and (
                    not branches
                    or picks_axis
                    or any(_has_layout_effect(branch, measured) for branch in branches)  # type: ignore[arg-type]
                    or _picks_axes(arms, measured)  # type: ignore[arg-type]
                ):
                    self._report(found, "a size")
                    continue
            memory = self._memory_test(found)
            if memory is None:
                continue
            evidence, measured = memory
            if (
                (not branches and not storage_only)
                or picks_axis
                or any(_names_layout(branch) for branch in branches)
                or any(_reorders_for_good(branch, measured) for branch in branches)
                or _picks_axes(arms, measured)
            ):
                self._report(found, evidence)

    def _report(self, node: cst.CSTNode, evidence: str) -> None:
        if id(node) not in self._reported:
            self._reported.add(id(node))
            self.report(node, what=source_of(node), evidence=evidence)

    def _guessed_tensor(self, comparison: cst.Comparison) -> str | None | object:
        """The root name of the tensor a channel-like size comparison measures, or ``_NOT_A_SIZE``."""
        left = comparison.left
        for target in comparison.comparisons:
            right = target.comparator
            for size, other, operator in ((left, right, target.operator), (right, left, _mirror(target.operator))):
                if _is_channel_like(operator, other):
                    measure = self._measure_of(size)
                    if measure is not None and measure[0] == "size":
                        return measure[1]
            left = right
        return _NOT_A_SIZE

    def _memory_test(self, node: cst.CSTNode) -> tuple[str, str | None] | None:
        """``("strides", root)`` for a comparison of a stride (``x.stride(1) == 1``, ``strides[1] ==
        1`` after ``strides = x.stride()``), ``("memory contiguity", root)`` for
        ``x.is_contiguous(memory_format=...)``; None for anything else."""
        if isinstance(node, cst.Comparison):
            for side in (node.left, *(target.comparator for target in node.comparisons)):
                measure = self._measure_of(side)
                if measure is not None and measure[0] == "stride":
                    return "strides", measure[1]
            return None
        if isinstance(node, cst.Call) and method_name(node) == "is_contiguous" and keyword(node, "memory_format"):
            return "memory contiguity", root_name(node)
        return None

    def _measure_of(self, node: cst.BaseExpression) -> tuple[str, str | None] | None:
        """What ``node`` measures (``shape``, ``size``, ``strides`` or ``stride``) and the root name of
        the tensor it measures: ``x.shape[-1]``, ``x.size(1)``, ``x.stride()``, a name bound to one, an
        entry of one, or a call to a project function that returns one of its argument."""
        if isinstance(node, cst.Name):
            if node.value not in self._measured_names:
                return None
            return self._measures.get((id(scope_of(self.ctx)), node.value))
        if isinstance(node, cst.Attribute):
            return ("shape", root_name(node.value)) if node.attr.value == "shape" else None
        if isinstance(node, cst.Subscript):
            return self._entry_of(node)
        if not isinstance(node, cst.Call):
            return None
        method = method_name(node)
        if method in _MEASURE_METHODS:
            whole, entry = _MEASURE_METHODS[method]
            if not node.args:
                return whole, root_name(node)
            single = len(node.args) == 1 and node.args[0].keyword is None
            return (entry, root_name(node)) if single and int_value(node.args[0].value) is not None else None
        return self._returned_measure(node)

    def _entry_of(self, node: cst.Subscript) -> tuple[str, str | None] | None:
        """``shape[-1]`` is a size, ``shape[:2]`` still a shape, ``strides[1]`` a stride."""
        if len(node.slice) != 1:
            return None
        measure = self._measure_of(node.value)
        if measure is None:
            return None
        index = node.slice[0].slice
        if isinstance(index, cst.Slice):
            return measure if measure[0] in _ENTRY else None
        entry = _ENTRY.get(measure[0])
        if isinstance(index, cst.Index) and int_value(index.value) is not None and entry is not None:
            return entry, measure[1]
        return None

    def _returned_measure(self, call: cst.Call) -> tuple[str, str | None] | None:
        """For a call to a project function the kernel map says returns a measure of its parameter
        ``i`` (``size:0``), that measure of the ``i``-th argument."""
        if not self.ctx.kernel.returns:
            return None
        record = project_returns(self.ctx, call.func)
        what, _, position = (record or "").partition(":")
        if what not in MEASURES or not position.isdigit():
            return None
        args = call.args
        index = int(position)
        if any(arg.star for arg in args) or index >= len(args) or args[index].keyword is not None:
            return None
        return what, root_name(args[index].value)

    def _statements_after(self, node: cst.If) -> list[cst.BaseStatement]:
        """The statements of the block holding ``node`` that follow it."""
        block = self.ctx.parent
        if not isinstance(block, cst.IndentedBlock | cst.Module):
            return []
        statements = list(block.body)
        index = next((i for i, s in enumerate(statements) if s is node), None)
        return statements[index + 1 :] if index is not None else []

    def _is_axis_destination(self, node: cst.IfExp) -> bool:
        """Whether the value of ``node`` is used as an axis: assigned to an axis-like name, or passed
        as ``dim=``/``axis=``."""
        parent = self.ctx.parent
        if isinstance(parent, cst.Assign) and parent.value is node:
            return _assigns_axis(parent)
        return (
            isinstance(parent, cst.Arg) and parent.keyword is not None and parent.keyword.value in _AXIS_KEYWORDS
        )


def _names_layout(node: cst.CSTNode) -> bool:
    """Whether ``node`` decides what the axes mean: a layout name, or a layout-like name assigned
    that does not speak of a storage order (``channels_last``, ``memory_format``).

    A stride or contiguity test whose branch only picks a storage order for the same axes (a round
    trip through a channels-last view, a flag saying the memory is channels-last) is routing, not
    inference.
    """
    for found in walk(node, into_functions=False):
        if isinstance(found, cst.SimpleString) and string_value(found) in _LAYOUT_NAMES:
            return True
        if isinstance(found, cst.AssignTarget) and isinstance(found.target, cst.Name):
            name = found.target.value
            if _LAYOUT_TARGET.search(name) and not _STORAGE_TARGET.search(name):
                return True
    return False


def _reorders(call: cst.Call, measured: str) -> bool:
    """``measured.permute(...)`` (any chain rooted at it) or ``torch.permute(measured, ...)``."""
    receiver = call.func.value if isinstance(call.func, cst.Attribute) else None
    if root_name(receiver) == measured:
        return True
    args = positional(call)
    return bool(args) and root_name(args[0].value) == measured


def _reorders_for_good(branch: cst.CSTNode, measured: str | None) -> bool:
    """Whether ``branch`` reorders the measured tensor's axes and does not put them back: the
    permutes, transposes and axis moves it applies, composed in the order they run, are not the
    identity. A round trip through a channels-last view keeps what each axis means; reorders whose
    axes are not literal are left alone."""
    calls = [c for c in _in_running_order(branch) if isinstance(c, cst.Call) and method_name(c) in _LAYOUT_METHODS]
    if not any(measured is None or _reorders(call, measured) for call in calls):
        return False
    moves = [_axis_move(call) for call in calls]
    if any(move is None for move in moves):
        return False
    rank = max((len(m[1]) for m in moves if m[0] == "permute"), default=0) or _rank_for(moves)  # type: ignore[index]
    axes = list(range(rank))
    for move in moves:
        axes = _apply(move, axes)  # type: ignore[arg-type]
        if axes is None:
            return False
    return axes != list(range(rank))


def _in_running_order(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The nodes below ``node`` in the order their values are computed: children before their
    parent, so in ``f(x.permute(a)).permute(b)`` the inner permute comes first."""
    for child in children(node):
        if not isinstance(child, cst.FunctionDef | cst.Lambda):
            yield from _in_running_order(child)
    yield node


def _axis_move(call: cst.Call) -> tuple[str, tuple[int, ...]] | None:
    """``("permute", dims)``, ``("swap", (a, b))`` or ``("move", (source, destination))`` with literal
    axes; None when an axis is not a literal. NumPy's ``transpose`` with all axes is a permute."""
    method = method_name(call)
    args = positional(call)
    if args and _axis_literal(args[0].value) is None:
        args = args[1:]  # torch.permute(x, dims), np.transpose(x, axes): the tensor comes first
    packed = len(args) == 1 and isinstance(args[0].value, cst.Tuple | cst.List)
    if packed:
        values = [int_value(e.value) for e in args[0].value.elements]  # type: ignore[attr-defined]
    else:
        values = [int_value(arg.value) for arg in args]
    if not values or any(v is None for v in values):
        return None
    if method == "permute" or (method == "transpose" and (packed or len(values) != 2)):
        return "permute", tuple(values)  # type: ignore[arg-type]
    kind = "move" if method in ("movedim", "moveaxis") else "swap"
    return (kind, tuple(values)) if len(values) == 2 else None  # type: ignore[arg-type]


def _rank_for(moves: list[tuple[str, tuple[int, ...]]]) -> int:
    """A rank large enough for every axis the swaps and moves name (negative ones count from the end)."""
    return 2 * max(abs(axis) for _, axes in moves for axis in axes) + 2


def _apply(move: tuple[str, tuple[int, ...]], axes: list[int]) -> list[int] | None:
    """The order of the original axes after ``move``; None when it does not fit the rank."""
    kind, values = move
    rank = len(axes)
    if any(not -rank <= v < rank for v in values):
        return None
    values = tuple(v % rank for v in values)
    if kind == "permute":
        return [axes[v] for v in values] if sorted(values) == list(range(rank)) else None
    if kind == "swap":
        first, second = values
        swapped = list(axes)
        swapped[first], swapped[second] = axes[second], axes[first]
        return swapped
    source, destination = values
    moved = [a for i, a in enumerate(axes) if i != source]
    moved.insert(destination, axes[source])
    return moved


def _picks_axes(arms: Sequence[cst.CSTNode], measured: str | None) -> bool:
    """Whether two arms each pick axes of the measured tensor (``dim=``/``axis=`` of a call on it,
    the first argument of a reduction of it, or a literal assigned to an axis-like name) and pick
    different ones: a size test choosing between ``HWC`` and ``CHW`` reductions."""
    choices = [_axis_choices(arm, measured) for arm in arms]
    picked = [c for c in choices if c]
    return len(picked) >= 2 and any(c != picked[0] for c in picked[1:])


def _axis_choices(node: cst.CSTNode, measured: str | None) -> frozenset[tuple[int, ...]]:
    found: set[tuple[int, ...]] = set()
    for item in walk(node, into_functions=False):
        if isinstance(item, cst.Call):
            for arg in _axis_args(item, measured):
                axes = _axis_literal(arg.value)
                if axes is not None:
                    found.add(axes)
        elif isinstance(item, cst.Assign) and _assigns_axis(item):
            axes = _axis_literal(item.value)
            if axes is not None:
                found.add(axes)
    return frozenset(found)


def _axis_args(call: cst.Call, measured: str | None) -> list[cst.Arg]:
    """The arguments of ``call`` that name axes of the measured tensor: ``dim=``/``axis=``, and the
    axes a reduction takes first, as a method (``x.sum((0, 1))``) or a function (``np.mean(x, (0, 1))``)."""
    receiver = call.func.value if isinstance(call.func, cst.Attribute) else None
    args = positional(call)
    if root_name(receiver) != measured:
        if not args or root_name(args[0].value) != measured:
            return []
        args = args[1:]  # torch.sum(x, dim), np.mean(x, axis): the tensor comes first
    named = [arg for arg in call.args if arg.keyword is not None and arg.keyword.value in _AXIS_KEYWORDS]
    return named + (args[:1] if method_name(call) in _REDUCTIONS else [])


def _assigns_axis(node: cst.Assign) -> bool:
    """``dim = ...``, ``reduce_axes = ...``: an assignment to an axis-like name."""
    return any(isinstance(t.target, cst.Name) and _AXIS_TARGET.search(t.target.value) for t in node.targets)


def _axis_literal(node: cst.BaseExpression) -> tuple[int, ...] | None:
    """``-1`` -> ``(-1,)``, ``(0, 1)`` -> ``(0, 1)``; None for anything that is not literal axes."""
    if isinstance(node, cst.Tuple | cst.List):
        values = tuple(int_value(e.value) for e in node.elements)
        return values if values and None not in values else None  # type: ignore[return-value]
    value = int_value(node)
    return (value,) if value is not None else None


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
