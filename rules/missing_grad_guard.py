"""TPL007: a primitive that runs heavy torch operations where autograd may be recording."""

from __future__ import annotations

import libcst as cst

from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit.exemptions import tests_apply
from torchperf_lint.toolkit.functions import is_primitive, under_grad_guard

_F = "torch.nn.functional."
#: Sampling, convolution, interpolation, padding and matrix products: the calls whose saved inputs cost.
HEAVY = frozenset(
    {
        *(_F + name for name in ("grid_sample", "affine_grid", "interpolate", "upsample", "pad", "linear")),
        *(_F + f"conv{d}d" for d in (1, 2, 3)),
        *(_F + f"conv_transpose{d}d" for d in (1, 2, 3)),
        *(_F + f"{kind}_pool{d}d" for kind in ("avg", "max") for d in (1, 2, 3)),
        *(f"torch.conv{d}d" for d in (1, 2, 3)),
        "torch.matmul",
        "torch.mm",
        "torch.bmm",
        "torch.einsum",
        "torch.tensordot",
        "torch.baddbmm",
        "torch.addmm",
    }
)


class MissingGradGuard(Rule):
    code = "TPL007"
    name = "missing-grad-guard"
    hint = "Wrap the kernel body in `with torch.no_grad():`."
    summary = "A heavy torch operation in a primitive runs outside `torch.no_grad()`"
    message = "`{callee}` runs outside `torch.no_grad()` in primitive `{function}`; guard the kernel body"
    why = (
        "When the caller has grad mode on (the default) and any input requires grad, sampling, "
        "convolution, interpolation, padding and matrix products save their inputs for a backward "
        "pass. A primitive promises not to record autograd, so its heavy work runs under "
        "`torch.no_grad()` (or `torch.inference_mode()` when no result will ever be saved for "
        "backward) however it is called."
    )
    example = (
        "def _route(volume, grid):  # torchperf: prevalidated\n"
        "    return F.grid_sample(volume, grid, align_corners=False)"
    )
    use_instead = (
        "def _route(volume, grid):  # torchperf: prevalidated\n"
        "    with torch.no_grad():\n"
        "        return F.grid_sample(volume, grid, align_corners=False)"
    )
    notes = (
        "Primitives are functions marked `# torchperf: prevalidated`, or matched by the "
        "`prevalidated` or `primitives` globs. The guard is a `with torch.no_grad():` or "
        "`torch.inference_mode()` block, or either as a decorator, in the same function. Cheap "
        "control work (building a theta with `torch.from_numpy`, a dtype cast) may sit outside it; "
        "only the heavy calls listed in the rule are flagged, matched by qualified name."
    ) + tests_apply(
        "the rule fires only in functions marked as primitives, and a test helper that carries the "
        "pragma or matches a glob promises the same no-autograd route as any other primitive"
    )
    options = (
        "- `prevalidated`: globs of qualified function names (`pkg.module.Class.method`) treated as "
        "caller-prevalidated, besides `# torchperf: prevalidated` on the `def` line.\n"
        "- `primitives`: globs of qualified names of further primitives."
    )
    fix_safety = (
        "No fix: the guard should wrap the whole kernel body, and where that body starts is a "
        "judgement the linter leaves to the author."
    )
    valid = (
        "import torch\nimport torch.nn.functional as F\ndef route(x, g):  # torchperf: prevalidated\n"
        "    with torch.no_grad():\n        return F.grid_sample(x, g)\n",
        "import torch\nfrom torch.nn import functional as F\n@torch.no_grad()\n"
        "def route(x):  # torchperf: prevalidated\n    return F.pad(x, (1, 1))\n",
        "import torch.nn.functional as F\ndef helper(x, g):\n    return F.grid_sample(x, g)\n",
        "import torch\ndef route(m):  # torchperf: prevalidated\n    theta = torch.from_numpy(m).float()\n"
        "    with torch.inference_mode():\n        return torch.matmul(theta, theta)\n",
        "import torch\ndef route(x):  # torchperf: prevalidated\n    return x.sum()\n",
    )
    invalid = (
        Invalid(
            "import torch.nn.functional as F\ndef route(x, g):  # torchperf: prevalidated\n"
            "    return F.grid_sample(x, g)\n",
            ((3, 12),),
        ),
        Invalid(
            "import torch\nfrom torch.nn.functional import interpolate as up\n"
            "def route(x):  # torchperf: prevalidated\n    with torch.enable_grad():\n"
            "        return up(x, scale_factor=2)\n",
            ((5, 16),),
        ),
        Invalid(
            "import torch\ndef route(a, b):  # torchperf: prevalidated\n    with torch.no_grad():\n"
            "        def inner():\n            return torch.bmm(a, b)\n        return inner()\n",
            ((5, 20),),
        ),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._primitives: list[str | None] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        enclosing = self._primitives[-1] if self._primitives else None
        own = self.ctx.function_qualname() if is_primitive(self.ctx, node) else None
        self._primitives.append(own or enclosing)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._primitives.pop()

    def visit_Call(self, node: cst.Call) -> None:
        function = self._primitives[-1] if self._primitives else None
        if function is None:
            return
        callee = self.ctx.qualname(node.func)
        if callee in HEAVY and not under_grad_guard(self.ctx):
            self.report(node, callee=callee, function=function)
