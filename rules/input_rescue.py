"""TPL102: a primitive that quietly repairs its input and carries on as if it were the input."""

from __future__ import annotations

import libcst as cst

from torchperf_lint.kernel_map.facts import Prevalidation
from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit.exemptions import test_files
from torchperf_lint.toolkit.functions import parameters
from torchperf_lint.toolkit.kernel_map_wording import OPTIONS, PREVALIDATED
from torchperf_lint.toolkit.matching import method_name

#: Methods that turn a wrong input into an acceptable one at the cost of a copy or a hidden conversion,
#: with the property of the input each one repairs.
RESCUES = {
    "detach": frozenset({"autograd"}),
    "cpu": frozenset({"device"}),
    "contiguous": frozenset({"strides"}),
    "to": frozenset({"dtype", "device"}),
    **{method: frozenset({"dtype"}) for method in ("type", "float", "double", "half", "bfloat16")},
}


class InputRescue(Rule):
    code = "TPL102"
    name = "input-rescue"
    hint = "Reject the bad input in the public function instead of converting it here."
    summary = "A primitive rebinds a parameter to a repaired copy of itself"
    message = (
        "`{target} = {target}.{method}(...)` repairs the input inside primitive `{function}`; "
        "reject it at the public entry"
    )
    why = (
        "A primitive behind a validating public function receives inputs that are already right. "
        "Rebinding a parameter to `.detach()`, `.cpu()`, `.contiguous()` or a dtype-converted copy "
        "hides a caller's mistake, costs a full copy on every call, and makes the primitive's "
        "contract differ from the public one."
    )
    example = "def _route(volume):  # torchperf: prevalidated\n    volume = volume.contiguous()"
    use_instead = (
        "def warp(volume):\n"
        "    if not volume.is_contiguous():\n"
        "        raise ValueError('volume must be contiguous')\n"
        "    return _route(volume)"
    )
    notes = (
        PREVALIDATED + " The rule applies to caller-prevalidated functions and to the primitives the `primitives` "
        "setting declares. Only rebinding a parameter to a rescue method of itself is flagged; in a "
        "function the map inferred, only a repair of a property its docstring or its callers validated "
        "(`.contiguous()` after a shape check repairs nothing the caller promised). "
        "Converting into a new name (`work = volume.to(torch.float32)`, the float32 working copy) "
        "is ordinary kernel work and is not flagged."
    ) + test_files(
        "a test helper converts its fixtures in place (`x = x.float()`) as setup, and a test that marks "
        "a helper as a primitive to exercise the pragma is not a kernel hiding a caller's mistake"
    )
    options = OPTIONS
    fix_safety = "No fix: the check belongs in the public function, which the linter cannot edit safely."
    valid = (
        "import torch\ndef warp(volume):\n    if volume.ndim != 4:\n        raise ValueError('rank')\n"
        "    return _route(volume)\n\ndef _route(volume):\n    volume = volume.contiguous()\n    return volume\n",
        "import torch\ndef route(volume):  # torchperf: prevalidated\n    work = volume.to(torch.float32)\n",
        "import torch\ndef public(volume):\n    volume = volume.contiguous()\n",
        "import torch\ndef route(volume, other):  # torchperf: prevalidated\n    other = volume.float()\n",
    )
    invalid = (
        Invalid(
            'import torch\ndef route(volume):\n    """Callers validate the layout and dtype."""\n'
            "    volume = volume.float()\n",
            ((4, 5),),
        ),
        Invalid(
            "import torch\ndef route(volume):  # torchperf: prevalidated\n    volume = volume.contiguous()\n",
            ((3, 5),),
        ),
        Invalid(
            "import torch\ndef route(volume, grid):  # torchperf: prevalidated\n"
            "    grid = grid.detach().to(torch.float32)\n",
            ((3, 5),),
        ),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._stack: list[tuple[str, frozenset[str], Prevalidation | None] | None] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        role = self.ctx.role()
        if role is None or not (role.prevalidated is not None or role.declared):
            self._stack.append(None)
            return
        names = frozenset(p.name.value for p in parameters(node))
        self._stack.append((self.ctx.function_qualname(), names, None if role.declared else role.prevalidated))

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._stack.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        current = self._stack[-1] if self._stack else None
        if current is None or len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            return
        function, params, inferred = current
        target = node.targets[0].target.value
        method = _rescue_of(node.value, target)
        if target not in params or method is None:
            return
        # A declared primitive promises inputs that need no repair; an inferred one, only what its
        # docstring or its callers validated (a contiguity repair after a shape check is the
        # function's own business).
        if inferred is None or inferred.covers(frozenset({target}), RESCUES[method], None):
            self.report(node, target=target, method=method, function=function)


def _rescue_of(value: cst.BaseExpression, name: str) -> str | None:
    """The first rescue method in a call chain that starts at ``name`` (``name.detach().to(...)``)."""
    methods: list[str] = []
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
        methods.append(method_name(value) or "")
        value = value.func.value
    if not (isinstance(value, cst.Name) and value.value == name):
        return None
    return next((m for m in reversed(methods) if m in RESCUES), None)
