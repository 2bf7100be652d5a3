"""TPL101: a full copy made "just in case" after a view or of an input."""

from __future__ import annotations

import libcst as cst

from torchperf_lint.fixes import UNSAFE, NodeEdit, PendingFix
from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit.functions import parameters
from torchperf_lint.toolkit.matching import method_name, source_of, walk

#: Methods that return a view of their receiver (or of a reshaped receiver) without copying.
VIEWS = frozenset(
    {
        "permute",
        "movedim",
        "moveaxis",
        "transpose",
        "swapaxes",
        "unsqueeze",
        "squeeze",
        "expand",
        "view",
        "t",
        "mT",
    }
)
_COPIES = frozenset({"contiguous", "clone"})


class DefensiveMaterialization(Rule):
    code = "TPL101"
    name = "defensive-materialization"
    hint = "Pass the view on; copy only where something writes in place."
    summary = "`.contiguous()` or `.clone()` of a view or an input with no write that needs it"
    message = (
        "`{what}` copies the whole tensor though nothing writes to it; let the next operation read the original"
    )
    why = (
        "Most torch operations read strided views directly. A `.contiguous()` after `permute` or "
        "`expand`, or a `.clone()` of an input that is only read, is a full extra pass over the "
        "volume and a second allocation of its size. A copy is needed only when something writes "
        "in place to the result, which is why such cases are left alone."
    )
    example = "out = F.grid_sample(volume.permute(0, 4, 1, 2, 3).contiguous(), grid)"
    use_instead = "out = F.grid_sample(volume.permute(0, 4, 1, 2, 3), grid)"
    notes = (
        "Flagged: `.contiguous()`/`.clone()` chained directly on a view method (permute, movedim, "
        "transpose, unsqueeze, squeeze, expand, view and friends), or applied to a parameter of the "
        "enclosing function. Not flagged when the result is assigned to a name that the same function "
        "later writes in place (`name.add_(...)`, `name[...] = ...`, `out=name`), or when the copy is "
        "returned (directly or through the name it is bound to): then it keeps the caller's result from "
        "aliasing the input. Files that never import torch are skipped."
    )
    fix = UNSAFE
    fix_safety = (
        "A `.contiguous()` chained on a view is removed (unsafe: the result keeps the view's strides, "
        "which changes the memory layout the next operation sees and, for a view that was already "
        "contiguous, nothing else). `.clone()` has no fix: removing it makes the result alias the input."
    )
    valid = (
        "import torch\ndef f(x):\n    out = x.permute(1, 0).clone()\n    out.add_(1)\n    return out\n",
        "import torch\ndef f(x):\n    y = torch.cat([x, x]).contiguous()\n    return y\n",
        "import torch\ndef f(x):\n    buf = x.clone()\n    buf[0] = 0\n    return buf\n",
        "def f(x):\n    return x.permute(1, 0).contiguous()\n",
        "import torch\ndef view_copy(self, dtype):\n    return self.clone().view(dtype)\n",
        "import torch\ndef f(t):\n    if min(t.stride()) > 1:\n        return t.contiguous()\n    return t\n",
    )
    invalid = (
        Invalid(
            "import torch\ndef f(x, g):\n    return F.grid_sample(x.permute(0, 4, 1, 2, 3).contiguous(), g)\n",
            ((3, 26),),
            fixed="import torch\ndef f(x, g):\n    return F.grid_sample(x.permute(0, 4, 1, 2, 3), g)\n",
        ),
        Invalid(
            "import torch\ndef f(volume):\n    v = volume.clone()\n    total = v.sum()\n    return total\n",
            ((3, 9),),
        ),
        Invalid(
            "import torch\ndef f(x, w):\n    y = x.unsqueeze(0).expand(4, -1).clone()\n    return y @ w\n",
            ((3, 9),),
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        if method not in _COPIES or node.args or not self.ctx.imports_torch:
            return
        receiver = node.func.value  # type: ignore[attr-defined]
        after_view = isinstance(receiver, cst.Call) and method_name(receiver) in VIEWS
        if not (after_view or self._is_parameter(receiver)) or self._result_is_written() or self._escapes():
            return
        fix = None
        if after_view and method == "contiguous":
            fix = PendingFix(UNSAFE, "Remove `.contiguous()`", (NodeEdit(node, source_of(receiver)),))
        self.report(node, fix=fix, what=f".{method}()")

    def _is_parameter(self, receiver: cst.BaseExpression) -> bool:
        function = self.ctx.enclosing_function()
        if function is None or not isinstance(receiver, cst.Name):
            return False
        return any(p.name.value == receiver.value for p in parameters(function))

    def _escapes(self) -> bool:
        """Whether the copy itself (or a method chain on it) is returned, directly or through the name
        it is bound to: a caller may then write to it, so the copy keeps it from aliasing the input."""
        node, parent_index = self.ctx.ancestors[-1], len(self.ctx.ancestors) - 2
        while parent_index >= 0:
            parent = self.ctx.ancestors[parent_index]
            if isinstance(parent, cst.Return):
                return True
            if not _continues_chain(parent, node):
                break
            node, parent_index = parent, parent_index - 1
        parent = self.ctx.parent
        function = self.ctx.enclosing_function()
        if not (isinstance(parent, cst.Assign) and len(parent.targets) == 1) or function is None:
            return False
        target = parent.targets[0].target
        return isinstance(target, cst.Name) and any(
            isinstance(found, cst.Return) and found.value is not None and _is_chain_of(found.value, target.value)
            for found in walk(function.body, into_functions=False)
        )

    def _result_is_written(self) -> bool:
        """Whether the copy is bound to a name that the same function later writes in place."""
        parent = self.ctx.parent
        if not (isinstance(parent, cst.Assign) and len(parent.targets) == 1):
            return False
        target = parent.targets[0].target
        function = self.ctx.enclosing_function()
        if not isinstance(target, cst.Name) or function is None:
            return False
        return any(_writes_in_place(found, target.value) for found in walk(function.body, into_functions=False))


def _writes_in_place(node: cst.CSTNode, name: str) -> bool:
    if isinstance(node, cst.Call):
        method = method_name(node)
        receiver = node.func.value if isinstance(node.func, cst.Attribute) else None
        if method and method.endswith("_") and not method.endswith("__") and _is_name(receiver, name):
            return True
        return any(
            arg.keyword is not None and arg.keyword.value == "out" and _is_name(arg.value, name)
            for arg in node.args
        )
    if isinstance(node, cst.AssignTarget | cst.AugAssign):
        target = node.target
        return isinstance(target, cst.Subscript) and _is_name(target.value, name)
    return False


def _continues_chain(parent: cst.CSTNode, child: cst.CSTNode) -> bool:
    """``child.attr``, ``child.method(...)`` or ``child[...]``: the value is still the copy's."""
    if isinstance(parent, cst.Attribute | cst.Subscript):
        return parent.value is child
    return isinstance(parent, cst.Call) and parent.func is child


def _is_chain_of(node: cst.BaseExpression, name: str) -> bool:
    while isinstance(node, cst.Call | cst.Attribute | cst.Subscript):
        node = node.func if isinstance(node, cst.Call) else node.value
    return isinstance(node, cst.Name) and node.value == name


def _is_name(node: cst.CSTNode | None, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name
