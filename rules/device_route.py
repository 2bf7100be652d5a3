"""TPL003: routes that move work to CUDA, MPS or another non-CPU device."""

from __future__ import annotations

import libcst as cst

from torchperf_lint.fixes import UNSAFE, NodeEdit, PendingFix
from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit.matching import (
    is_non_cpu_device_string,
    is_reference,
    is_torch_name,
    keyword,
    method_name,
    positional,
    source_of,
    string_value,
)

_DEVICE_MODULES = (
    "torch.cuda",
    "torch.backends.mps",
    "torch.backends.cuda",
    "torch.mps",
    "torch.xpu",
)
_DEVICE_METHODS = {"cuda", "xpu"}
_DEVICE_FLAGS = {"is_cuda", "is_mps", "is_xpu"}


class DeviceRoute(Rule):
    code = "TPL003"
    name = "device-route"
    hint = "Keep the route on the CPU; delete the device branch or move it out of the kernel package."
    summary = "A route to CUDA, MPS or another non-CPU device"
    message = "`{what}` routes work off the CPU; routes are CPU-only by contract"
    why = (
        "The kernels are benchmarked and tested on the CPU only. A device branch is a route that "
        "no benchmark chose and no test runs, and moving tensors between devices copies them."
    )
    example = 'volume = volume.to("cuda")'
    use_instead = "volume = volume  # stays on the CPU; the caller owns placement"
    notes = (
        "A `device` parameter threaded through (`device=x.device`, `device=device`) is not "
        "flagged: only literal non-CPU devices, device modules and device checks are. "
        '`x.to(torch.float32)`, `.to(dtype=...)` and `"cpu"` are fine.'
    )
    fix = UNSAFE
    fix_safety = (
        "`.cuda()`, `.mps()` and friends are removed, leaving the receiver. On a CPU tensor the values "
        "are the same, but the call returned a copy and the receiver is the caller's own object, so a "
        "later in-place write would now reach it: unsafe. Device literals, `torch.device` and "
        "`torch.cuda` checks have no fix: the right CPU route depends on what the branch does."
    )
    valid = (
        "import torch\ny = x.to(torch.float32)\n",
        "import torch\ny = x.to(dtype=torch.uint8)\n",
        "import torch\ny = torch.zeros(3, device='cpu')\n",
        "import torch\ny = torch.empty_like(x, device=x.device)\n",
        "import torch\ny = x.to('cpu')\n",
        "def cuda():\n    pass\ncuda()\n",
    )
    invalid = (
        Invalid("import torch\ny = x.cuda()\n", ((2, 5),), fixed="import torch\ny = x\n"),
        Invalid(
            "import torch\ny = x.float().cuda(non_blocking=True)\n",
            ((2, 5),),
            fixed="import torch\ny = x.float()\n",
        ),
        Invalid("import torch\ny = x.to('cuda:0')\n", ((2, 10),)),
        Invalid("import torch\ny = torch.ones(2, device='mps')\n", ((2, 19),)),
        Invalid("import torch as T\nd = T.device('cuda', 0)\n", ((2, 5),)),
        Invalid("import torch\nif torch.cuda.is_available():\n    pass\n", ((2, 4),)),
        Invalid("import torch\nif x.is_cuda:\n    pass\n", ((2, 4),)),
        Invalid("from torch.backends import mps\nok = mps.is_available()\n", ((2, 6),)),
    )

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        qualname = ctx.qualname(node.func)
        if qualname == "torch.device":
            args = positional(node) or list(node.args)
            if args and is_non_cpu_device_string(args[0].value):
                self.report(node, what=f"torch.device({string_value(args[0].value)!r})")
            return
        if not ctx.imports_torch:
            return
        device = keyword(node, "device")
        if device is not None and is_non_cpu_device_string(device.value):
            self.report(device, what=f"device={string_value(device.value)!r}")
        if qualname is not None:
            return
        method = method_name(node)
        if method in _DEVICE_METHODS:
            self.report(node, fix=_drop_device_call(node), what=f".{method}()")
        elif method == "to":
            for arg in positional(node):
                if is_non_cpu_device_string(arg.value):
                    self.report(arg, what=f".to({string_value(arg.value)!r})")

    def visit_Attribute(self, node: cst.Attribute) -> None:
        ctx = self.ctx
        qualname = ctx.qualname(node)
        if (qualname is None and node.attr.value not in _DEVICE_FLAGS) or not is_reference(ctx, node):
            return
        if is_torch_name(qualname, *_DEVICE_MODULES):
            self.report(node, what=".".join((qualname or "").split(".")[:3]))
        elif qualname is None and node.attr.value in _DEVICE_FLAGS and ctx.imports_torch:
            self.report(node, what=f".{node.attr.value}")

    def visit_Name(self, node: cst.Name) -> None:
        qualname = self.ctx.qualname(node)
        if is_torch_name(qualname, *_DEVICE_MODULES) and is_reference(self.ctx, node):
            self.report(node, what=qualname)


def _drop_device_call(call: cst.Call) -> PendingFix | None:
    """``x.cuda(...)`` -> ``x``: the value is the same, but ``x`` is now returned itself, not a copy."""
    if not isinstance(call.func, cst.Attribute):
        return None
    receiver = source_of(call.func.value)
    return PendingFix(UNSAFE, f"Remove `.{call.func.attr.value}()`", (NodeEdit(call, receiver),))
