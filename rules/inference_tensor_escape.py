"""TPL008: a primitive that returns tensors made under ``torch.inference_mode()``."""

from __future__ import annotations

import libcst as cst

from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit import writes
from torchperf_lint.toolkit.exemptions import tests_apply
from torchperf_lint.toolkit.functions import module_functions, primitive
from torchperf_lint.toolkit.kernel_map_wording import OPTIONS, PRIMITIVES
from torchperf_lint.toolkit.matching import is_literal, keyword, positional, walk
from torchperf_lint.vocabulary import INFERENCE_MODE


class InferenceTensorEscape(Rule):
    code = "TPL008"
    name = "inference-tensor-escape"
    hint = "Use `torch.no_grad()` around work whose result the primitive returns."
    summary = "A primitive returns a value computed under `torch.inference_mode()`"
    message = (
        "`{what}` makes the returned value an inference tensor in primitive `{function}`; "
        "use `torch.no_grad()` so callers can save it for backward"
    )
    why = (
        "Tensors created under `torch.inference_mode()` are inference tensors for good: autograd "
        "refuses to save them for backward and they cannot be updated in place outside inference "
        "mode. A primitive that returns one hands every caller a value that breaks as soon as it "
        "feeds a trainable layer (`conv(out).sum().backward()` raises), although the primitive itself "
        "never needed a graph. `torch.no_grad()` stops recording just as well and returns ordinary "
        "tensors."
    )
    example = (
        "def _route(volume, grid):  # torchperf: prevalidated\n"
        "    with torch.inference_mode():\n"
        "        return F.grid_sample(volume, grid, align_corners=False)"
    )
    use_instead = (
        "def _route(volume, grid):  # torchperf: prevalidated\n"
        "    with torch.no_grad():\n"
        "        return F.grid_sample(volume, grid, align_corners=False)"
    )
    notes = (
        PRIMITIVES + " Every primitive is checked, in any package: an inference tensor breaks a caller's backward "
        "whatever the package's convention. Flagged: `with torch.inference_mode():` whose block returns a value, "
        "or binds a name the function returns, and `@torch.inference_mode()` on a primitive that "
        "returns a value. The trade-off: inference mode also skips version counting and view "
        "tracking, a per-operation saving that matters most for many small operations; `no_grad` "
        "keeps them, so its results stay ordinary tensors that callers may save for backward or "
        "update in place. Keep `inference_mode` for code whose results never leave it (a benchmark "
        "loop, a metric). Exempt: `torch.inference_mode(False)`, inference mode around work whose "
        "result is not returned, and Python numbers read out under it (`.item()`, `float(t)`, "
        "`len(x)`, directly, through a local, or from a project function that returns one), which "
        "are no tensors."
    ) + tests_apply(
        "a primitive that hands out inference tensors breaks a test's `.backward()` exactly as it "
        "breaks a caller's"
    )
    options = OPTIONS
    fix_safety = (
        "No fix: `no_grad` and `inference_mode` differ in what callers may do with the result, so "
        "the switch is the author's decision (it is usually right, and it is one word)."
    )
    valid = (
        "import torch\ndef score(x):  # torchperf: prevalidated\n    with torch.inference_mode():\n"
        "        return float(x.mean())\n",
        "import torch\ndef score(x):  # torchperf: prevalidated\n    with torch.inference_mode():\n"
        "        total = x.sum().item()\n        count = len(x)\n    return total, count\n",
        "import torch\ndef _peak(x):\n    return x.max().item()\n"
        "def score(x):  # torchperf: prevalidated\n    with torch.inference_mode():\n        peak = _peak(x)\n"
        "    return peak\n",
        "import torch\ndef route(x):  # torchperf: prevalidated\n    with torch.no_grad():\n"
        "        return x * 2\n",
        "import torch\ndef helper(x):\n    with torch.inference_mode():\n        return x * 2\n",
        "import torch\ndef route(x):  # torchperf: prevalidated\n    with torch.inference_mode():\n"
        "        stats = x.mean()\n    log(stats)\n    return x\n",
        "import torch\ndef route(x):  # torchperf: prevalidated\n    with torch.inference_mode(False):\n"
        "        return x * 2\n",
        "import torch\n@torch.inference_mode()\ndef route(x):  # torchperf: prevalidated\n    log(x)\n",
    )
    invalid = (
        Invalid(
            "import torch\nimport torch.nn.functional as F\ndef resize(volume, size):\n"
            '    """Resize one prevalidated CDHW volume."""\n    with torch.inference_mode():\n'
            "        out = F.interpolate(volume[None], size=size)\n    return out[0]\n",
            ((5, 10),),
        ),
        Invalid(
            "import torch\ndef route(x):  # torchperf: prevalidated\n    with torch.inference_mode():\n"
            "        return x * 2\n",
            ((3, 10),),
        ),
        Invalid(
            "import torch\ndef route(x):  # torchperf: prevalidated\n    with torch.inference_mode():\n"
            "        out = x * 2\n    return out\n",
            ((3, 10),),
        ),
        Invalid(
            "from torch import inference_mode\n@inference_mode()\ndef route(x):  # torchperf: prevalidated\n"
            "    return x.flip(0)\n",
            ((2, 2),),
        ),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._primitives: list[str | None] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        function = self.ctx.function_qualname() if primitive(self.ctx) is not None else None
        self._primitives.append(function)
        if function is None or not _returns_value(node.body):
            return
        for decorator in node.decorators:
            if self._is_inference_mode(decorator.decorator):
                self.report(decorator.decorator, what="@torch.inference_mode()", function=function)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._primitives.pop()

    def visit_With(self, node: cst.With) -> None:
        function = self._primitives[-1] if self._primitives else None
        enclosing = self.ctx.enclosing_function()
        if function is None or enclosing is None:
            return
        for item in node.items:
            if self._is_inference_mode(item.item) and self._escapes(node, enclosing):
                self.report(item.item, what="torch.inference_mode()", function=function)

    def _escapes(self, block: cst.With, function: cst.FunctionDef) -> bool:
        """Whether the block returns a value that may be a tensor, or binds a name to one that the
        function returns. A Python number read out of a tensor (``.item()``, ``float(...)``) is no
        inference tensor, whether read here, through a local, or by a helper that returns one."""
        if any(not self._scalar(value) for value in _returned_values(block.body)):
            return True
        bound = {
            target.target.value
            for found in walk(block.body, into_functions=False)
            if isinstance(found, cst.Assign) and not self._scalar(found.value)
            for target in found.targets
            if isinstance(target.target, cst.Name)
        }
        return bool(bound & writes.of(self.ctx, function.body).returned)

    def _scalar(self, value: cst.BaseExpression) -> bool:
        """``x.item()``, ``float(t)``, ``len(x)``, a tuple of those, or a project function (in this
        file or another module) that returns one."""
        if isinstance(value, cst.Tuple):
            return all(self._scalar(element.value) for element in value.elements)
        if isinstance(value, cst.BaseNumber):
            return True
        if not isinstance(value, cst.Call):
            return False
        func = value.func
        if isinstance(func, cst.Attribute) and func.attr.value in _SCALAR_METHODS:
            return True
        if isinstance(func, cst.Name) and func.value in _SCALAR_BUILTINS and self.ctx.qualname(func) is None:
            return func.value not in self._local_functions()
        callee = self.ctx.qualname(func) or (
            f"{self.ctx.module_name}.{func.value}" if isinstance(func, cst.Name) else ""
        )
        return self.ctx.kernel.returns.get(callee) == "scalar"

    def _local_functions(self) -> dict[str, cst.FunctionDef]:
        return module_functions(self.ctx)

    def _is_inference_mode(self, expression: cst.BaseExpression) -> bool:
        call = expression if isinstance(expression, cst.Call) else None
        target = call.func if call is not None else expression
        if self.ctx.qualname(target) not in INFERENCE_MODE:
            return False
        if call is None:
            return True
        mode = (positional(call) or [keyword(call, "mode")])[0]
        return mode is None or not is_literal(mode.value, "False")


#: Calls that give a Python number (or list of them) read out of a tensor.
_SCALAR_METHODS = frozenset({"item", "tolist", "numel", "dim", "ndimension", "nelement", "element_size"})
_SCALAR_BUILTINS = frozenset({"float", "int", "bool", "len", "round", "complex"})


def _returned_values(body: cst.BaseSuite) -> list[cst.BaseExpression]:
    return [
        found.value
        for found in walk(body, into_functions=False)
        if isinstance(found, cst.Return) and found.value is not None and not is_literal(found.value, "None")
    ]


def _returns_value(body: cst.BaseSuite) -> bool:
    return any(
        isinstance(found, cst.Return) and found.value is not None and not is_literal(found.value, "None")
        for found in walk(body, into_functions=False)
    )
