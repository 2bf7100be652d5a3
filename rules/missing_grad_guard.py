"""TPL007: a primitive that runs heavy torch operations where autograd may be recording."""

from __future__ import annotations

import libcst as cst

from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit.exemptions import tests_apply
from torchperf_lint.toolkit.functions import under_grad_guard
from torchperf_lint.toolkit.grad import may_require_grad
from torchperf_lint.toolkit.kernel_map_wording import OPTIONS, PRIMITIVES
from torchperf_lint.vocabulary import HEAVY_OPS


class MissingGradGuard(Rule):
    code = "TPL007"
    name = "missing-grad-guard"
    hint = "Wrap the kernel body in `with torch.no_grad():`."
    summary = "A heavy torch operation in a primitive runs outside `torch.no_grad()`"
    message = (
        "`{callee}` runs outside `torch.no_grad()` in primitive `{function}` ({reason}); guard the kernel body"
    )
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
        PRIMITIVES + " Declared primitives (the pragma, the `prevalidated` and `primitives` settings) are always "
        "checked. Inferred ones follow the package's own convention: where most of a top-level "
        "package's primitives that take a tensor run their heavy calls under a grad guard (their own, "
        "or every caller's), an unguarded one is a finding and the message counts them; a package that "
        "never guards (a differentiable library) has chosen autograd and gets none. The guard is a "
        "`with torch.no_grad():` or `torch.inference_mode()` block, or either as a decorator, in the "
        "same function. Only heavy calls matched by qualified name are flagged, and only when an "
        "argument may require grad: cheap control work outside the guard (a theta built with "
        "`torch.from_numpy`, a grid from `torch.linspace`, shapes and sizes) never does."
    ) + tests_apply("a test helper that is a primitive promises the same no-autograd route as any other")
    options = OPTIONS
    fix_safety = (
        "No fix: the guard should wrap the whole kernel body, and where that body starts is a "
        "judgement the linter leaves to the author."
    )
    valid = (
        "import torch\nimport torch.nn.functional as F\n\n"
        "def conv(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:\n    return F.conv2d(x, w)\n\n"
        "def warp(x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:\n    return F.grid_sample(x, g)\n",
        "import numpy as np\nimport torch\nimport torch.nn.functional as F\n"
        "def route(volume, matrix: np.ndarray, size: tuple[int, int]):  # torchperf: prevalidated\n"
        "    theta = torch.from_numpy(matrix).unsqueeze(0)\n"
        "    grid = F.affine_grid(theta, [1, volume.shape[0], *size])\n"
        "    with torch.no_grad():\n        return F.grid_sample(volume[None], grid)\n",
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
        Invalid(
            "import torch\nimport torch.nn.functional as F\n\n"
            "def a(x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:\n"
            "    with torch.no_grad():\n        return F.grid_sample(x, g)\n\n"
            "def b(x: torch.Tensor) -> torch.Tensor:\n"
            "    with torch.no_grad():\n        return F.pad(x, (1, 1))\n\n"
            "def c(x: torch.Tensor) -> torch.Tensor:\n    return F.interpolate(x, scale_factor=2)\n",
            ((13, 12),),
        ),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._primitives: list[tuple[str, str] | None] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        enclosing = self._primitives[-1] if self._primitives else None
        role = self.ctx.role()
        own = (self.ctx.function_qualname(), role.grad_guard) if role is not None and role.grad_guard else None
        self._primitives.append(own or enclosing)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._primitives.pop()

    def visit_Call(self, node: cst.Call) -> None:
        current = self._primitives[-1] if self._primitives else None
        if current is None:
            return
        callee = self.ctx.qualname(node.func)
        if callee not in HEAVY_OPS or under_grad_guard(self.ctx):
            return
        enclosing = self.ctx.enclosing_function()
        if enclosing is not None and any(may_require_grad(self.ctx, enclosing, arg.value) for arg in node.args):
            function, reason = current
            self.report(node, callee=callee, function=function, reason=reason)
