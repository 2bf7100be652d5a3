"""TPL101: a full copy made "just in case" after a view or of an input."""

from __future__ import annotations

import libcst as cst

from torchperf_lint.fixes import UNSAFE, NodeEdit, PendingFix
from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit import writes
from torchperf_lint.toolkit.exemptions import TEST_FILES as TEST_FILES_NOTE
from torchperf_lint.toolkit.functions import parameters
from torchperf_lint.toolkit.matching import is_literal, method_name, source_of

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
        "enclosing function. The copy is followed through view and reshape chains "
        "(`x.clone().reshape(-1, 2)`), conditional expressions (`x if inplace else x.clone()`) and "
        "the name it is bound to (plain or annotated). Exempt, because the copy is then needed: "
        "something writes it in place (`y[...] = v`, `y[...].zero_()`, `y += v`, `y.attr.fill_(0)`, "
        "`f(y, inplace=True)`, `out=y`), or it is handed to a function the file cannot see into "
        "(`helper(y)`, `obj.update(y)`), which may write it (torch functions, tensor methods and "
        "pure builtins only read); it is returned (alone or in a tuple), kept (`items.append(y)`) "
        "or stored (`self.y = ...`), so it must not alias the input; or, for `.contiguous()`, its result "
        "feeds `.view(...)`, `torch.view_as_complex` or a compiled extension under `torch.ops`, which "
        "need contiguous memory. Files that never import torch are skipped."
    ) + TEST_FILES_NOTE
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
        "import torch\ndef f(boxes, inplace):\n    out = boxes if inplace else boxes.clone()\n"
        "    out[..., 2:] -= out[..., :2]\n",
        "import torch\ndef f(self, keep, inplace):\n    obj = self if inplace else self.clone()\n"
        "    obj._valid &= keep\n    obj._data.masked_fill_(keep, 0)\n",
        "import torch\ndef f(points):\n    points = points.clone().reshape(-1, 2)\n    points[:, 0] = 0\n",
        "import torch\ndef f(bias):\n    bias = bias.clone()\n    bias[4:8].zero_()\n",
        "import torch\ndef f(boxes):\n    b: torch.Tensor = boxes.clone()\n    convert(b, inplace=True)\n",
        "import torch\ndef f(x, b):\n    x = x.permute(0, 2, 1).contiguous()\n    return g(x.view(b, -1))\n",
        "import torch\ndef f(x):\n    return torch.view_as_complex(x.transpose(0, 1).contiguous())\n",
        "import torch\ndef f(self, x):\n    self.data = x.transpose(0, 1).contiguous()\n",
        "import torch\ndef f(old, new):\n    return new.clone(), step(new)\n",
        "import torch\ndef f(t):\n    b = t.permute(2, 0, 1).contiguous().unsqueeze(0)\n    return b\n",
        "import torch\ndef f(t):\n    rel = t.permute(1, 2, 0).contiguous().unsqueeze(0)\n"
        "    rel *= 8\n    return g(rel)\n",
        "import torch\ndef f(boxes):\n    applied = boxes.clone().transform_(m)\n",
        "import torch\ndef f(tensor, low, high):\n    tensor = tensor.clone()\n\n    def norm_ip(img, lo, hi):\n"
        "        img.clamp_(min=lo, max=hi)\n\n    norm_ip(tensor, low, high)\n    return tensor\n",
        "import torch\ndef f(self, mask):\n    self.register_buffer('mask', mask.clone())\n",
        "import torch\ndef f(x):\n    return torch.ops.mylib.blur(x.permute(0, 2, 3, 1).contiguous())\n",
        "import torch\ndef f(self, boxes):\n    boxes = boxes.clone()\n"
        "    return super().transform(boxes=boxes)\n",
        "import torch\ndef f(x):\n    x = x.permute(0, 2, 1).contiguous()\n    return x.flatten(1)\n",
        "import torch\ndef f(x):\n    x = x.permute(1, 2, 0)\n    return x.contiguous().numpy()\n",
        "import torch\ndef f(outputs):\n    outputs = [o.permute(0, 3, 1, 2).contiguous() for o in outputs]\n"
        "    return outputs\n",
    )
    invalid = (
        Invalid(
            "import torch.nn.functional as F\ndef f(x, g):\n"
            "    return F.grid_sample(x.permute(0, 4, 1, 2, 3).contiguous(), g)\n",
            ((3, 26),),
            fixed="import torch.nn.functional as F\ndef f(x, g):\n"
            "    return F.grid_sample(x.permute(0, 4, 1, 2, 3), g)\n",
        ),
        Invalid(
            "import torch\ndef f(volume):\n    v = volume.clone()\n    total = v.sum()\n    return total\n",
            ((3, 9),),
        ),
        Invalid(
            "import torch\ndef f(x, w):\n    y = x.unsqueeze(0).expand(4, -1).clone()\n    return y @ w\n",
            ((3, 9),),
        ),
        Invalid(
            "import torch\ndef f(points, inplace):\n"
            "    p = points.clone() if points.is_floating_point() else points.float()\n"
            "    q = p.reshape(-1, 2)\n    return torch.cat([q, q], dim=1)\n",
            ((3, 9),),
        ),
        Invalid(
            "import torch\ndef f(sim):\n    s = sim.transpose(-1, -2).contiguous()\n"
            "    return s.softmax(2).sum()\n",
            ((3, 9),),
            fixed="import torch\ndef f(sim):\n    s = sim.transpose(-1, -2)\n    return s.softmax(2).sum()\n",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        if method not in _COPIES or node.args or not self.ctx.imports_torch:
            return
        receiver = node.func.value  # type: ignore[attr-defined]
        after_view = isinstance(receiver, cst.Call) and method_name(receiver) in VIEWS
        if not (after_view or self._is_parameter(receiver)) or self._is_needed(method):
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

    def _is_needed(self, method: str) -> bool:
        """Whether something needs the copy: it is written in place, kept or returned (so it must not
        alias the input), or, for ``.contiguous()``, read by an operation that needs contiguous memory.

        The copy is followed through view chains (``x.clone().reshape(-1, 2)``), conditional
        expressions (``x if inplace else x.clone()``) and the name it is bound to.
        """
        ancestors = self.ctx.ancestors
        value: cst.CSTNode = ancestors[-1]
        for index in range(len(ancestors) - 2, -1, -1):
            parent = ancestors[index]
            if isinstance(parent, cst.Attribute) and parent.value is value:
                continue_chain = index > 0 and isinstance(ancestors[index - 1], cst.Call)
                if not continue_chain:
                    return False
                value = parent
            elif isinstance(parent, cst.Call) and parent.func is value:
                chained = method_name(parent) or ""
                if chained.endswith("_") and not chained.endswith("__"):
                    return True
                if chained in writes.VIEW_METHODS and method == "contiguous":
                    return True
                if chained not in _PASS_THROUGH:
                    return False
                value = parent
            elif isinstance(parent, cst.Subscript) and parent.value is value:
                value = parent
            elif isinstance(parent, cst.IfExp | cst.Element | cst.Tuple | cst.List):
                value = parent
            elif isinstance(parent, cst.ListComp | cst.GeneratorExp | cst.SetComp) and parent.elt is value:
                value = parent
            elif isinstance(parent, cst.Return):
                return True
            elif isinstance(parent, cst.Arg):
                return self._argument_needs(ancestors[index - 1], parent, method)
            elif isinstance(parent, cst.Assign | cst.AnnAssign):
                return self._binding_needs(parent, method)
            else:
                return False
        return False

    def _argument_needs(self, call: cst.CSTNode, arg: cst.Arg, method: str) -> bool:
        """A call that writes its argument (``inplace=True``, ``out=``), keeps it (``items.append``),
        or needs contiguous memory (``torch.view_as_complex``, a compiled extension)."""
        if not isinstance(call, cst.Call):
            return False
        if arg.keyword is not None and arg.keyword.value == "out":
            return True
        if not writes.reads_only(self.ctx, call):
            return True  # a function this file cannot see into may write its argument
        if method_name(call) in writes.KEEPING_METHODS:
            return True
        if any(
            a.keyword is not None and a.keyword.value == "inplace" and not is_literal(a.value, "False")
            for a in call.args
        ):
            return True
        qualname = self.ctx.qualname(call.func) or ""
        return method == "contiguous" and (qualname in _NEEDS_CONTIGUOUS or qualname.startswith("torch.ops."))

    def _binding_needs(self, statement: cst.Assign | cst.AnnAssign, method: str) -> bool:
        if isinstance(statement, cst.Assign):
            targets = [t.target for t in statement.targets]
        else:
            targets = [statement.target]
        if not all(isinstance(target, cst.Name) for target in targets):
            return True  # stored as an attribute or an item: the copy outlives this function's view of it
        function = self.ctx.enclosing_function()
        facts = writes.of(self.ctx, function.body if function is not None else self.ctx.module)
        needed = facts.written | facts.kept | facts.returned | facts.passed
        if method == "contiguous":
            needed = needed | facts.viewed
        return any(target.value in needed for target in targets)  # type: ignore[attr-defined]


#: Methods whose result shares the copy's memory, so a write to it writes the copy.
_PASS_THROUGH = VIEWS | writes.SHARING_METHODS | {"view_as", "as_strided"}
_NEEDS_CONTIGUOUS = frozenset({"torch.view_as_complex", "torch.view_as_real"})
