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
_AUTOCAST = frozenset({"torch.autocast", "torch.amp.autocast", "torch.amp.autocast_mode.autocast"})
_DEVICE_KEYWORDS = ("device", "device_type")
_MOVES, _NAMES, _TESTS, _USES = (
    "moves work to a non-CPU device",
    "names a non-CPU device",
    "tests for a non-CPU device",
    "uses a non-CPU device backend",
)
#: Expressions a condition is built from; a device test anywhere inside one is reported once.
_CONDITION_PARTS = (
    cst.BooleanOperation,
    cst.UnaryOperation,
    cst.Comparison,
    cst.Call,
    cst.Attribute,
    cst.Subscript,
)


class DeviceRoute(Rule):
    code = "TPL003"
    name = "device-route"
    hint = "Keep the route on the CPU; delete the device branch or move it out of the kernel package."
    summary = "A route to CUDA, MPS or another non-CPU device"
    message = "`{what}` {effect}; routes are CPU-only by contract"
    why = (
        "The kernels are benchmarked and tested on the CPU only. A device branch is a route that "
        "no benchmark chose and no test runs, and moving tensors between devices copies them."
    )
    example = 'volume = volume.to("cuda")\nout = F.grid_sample(volume, grid)'
    use_instead = "out = F.grid_sample(volume, grid)  # the caller owns placement"
    notes = (
        'Flagged: `.cuda()`, `.xpu()`; a literal non-CPU device (`"cuda"`, `"mps:0"`, `f"cuda:{i}"`) '
        "given to `.to(...)`, `torch.device(...)`, `torch.autocast(...)` or a `device=`/`device_type=` "
        'keyword; comparisons with one (`x.device.type == "cuda"`, `!=`, `in ("cuda", "mps")`); the '
        "`is_cuda`/`is_mps`/`is_xpu` flags; any use of `torch.cuda`, `torch.mps`, `torch.xpu` and "
        "`torch.backends.cuda`/`mps`. One condition gives one finding: `x.is_cuda or x.is_mps` is "
        "reported once. Exempt: a `device` threaded through (`device=x.device`, `device=device`), "
        '`x.to(torch.float32)`, `.to(dtype=...)` and `"cpu"`, which keep work where the caller put it. '
        "Test files are not exempt: tests compare against other CPU backends (NumPy, SciPy, OpenCV), "
        "and a CUDA test is a device route the contract rules out."
    )
    fix = UNSAFE
    fix_safety = (
        "`.cuda()` and `.xpu()` are removed, leaving the receiver; `volume = volume.cuda()` "
        "is removed whole (or becomes `pass` when it is the only statement of its block) rather than "
        "left as `volume = volume`, and `volume: T = volume.cuda()` keeps only its annotation (in a "
        "function or module; in a class body only the call goes, so the class attribute stays). On a "
        "CPU tensor the values are the same, but the call returned a copy and the receiver is the "
        "caller's own object, so a later in-place write would now reach it: unsafe. Device literals, "
        "`torch.device` and `torch.cuda` checks have no fix: the right CPU route depends on what the "
        "branch does."
    )
    valid = (
        "import torch\ny = x.to(torch.float32)\n",
        "import torch\ny = x.to(dtype=torch.uint8)\n",
        "import torch\ny = torch.zeros(3, device='cpu')\n",
        "import torch\ny = torch.empty_like(x, device=x.device)\n",
        "import torch\ny = x.to('cpu')\n",
        "def cuda():\n    pass\ncuda()\n",
        "import torch\nif x.device.type == 'cpu':\n    pass\nok = x.device.type in ('cpu', 'meta')\n",
        "import torch\nwith torch.autocast('cpu', dtype=torch.bfloat16):\n    pass\n",
        "import torch\ny = x.to(f'{device}')\nname = f'cuda is {state}'\n",
    )
    invalid = (
        Invalid("import torch\ny = x.cuda()\n", ((2, 5),), fixed="import torch\ny = x\n"),
        Invalid(
            "import torch\nclass Holder:\n    volume: torch.Tensor = volume.cuda()\n",
            ((3, 28),),
            fixed="import torch\nclass Holder:\n    volume: torch.Tensor = volume\n",
        ),
        Invalid(
            "import torch\ndef f(volume):\n    volume: torch.Tensor = volume.cuda()\n    return volume\n",
            ((3, 28),),
            fixed="import torch\ndef f(volume):\n    volume: torch.Tensor\n    return volume\n",
        ),
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
        Invalid(
            "import torch\nif x.device.type == 'cuda':\n    pass\nif x.device.type != 'mps':\n    pass\n"
            "ok = x.device.type in ('cuda', 'mps')\n",
            ((2, 4), (4, 4), (6, 6)),
        ),
        Invalid(
            "import torch\nwith torch.autocast('cuda', enabled=amp):\n    pass\n"
            "with torch.autocast(device_type='cuda'):\n    pass\n",
            ((2, 6), (4, 6)),
        ),
        Invalid("import torch\nd = torch.device(f'cuda:{i}')\ny = x.to(f'cuda:{rank}')\n", ((2, 5), (3, 10))),
        Invalid(
            "import torch\nif x.is_cuda or x.is_mps:\n    pass\n"
            "if torch.cuda.is_available() or torch.backends.mps.is_available():\n    pass\n",
            ((2, 4), (4, 4)),
        ),
        Invalid(
            "import torch\ndef f(volume, grid):\n    volume = volume.cuda()\n    return g(volume, grid)\n",
            ((3, 14),),
            fixed="import torch\ndef f(volume, grid):\n    return g(volume, grid)\n",
        ),
        Invalid(
            "import torch\ndef f(volume):\n    if big:\n        volume = volume.cuda()\n    return volume\n",
            ((4, 18),),
            fixed="import torch\ndef f(volume):\n    if big:\n        pass\n    return volume\n",
        ),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._conditions: set[int] = set()

    def _report(self, node: cst.CSTNode, what: str, effect: str, fix: PendingFix | None = None) -> None:
        """Report ``node`` unless another device test of the same condition was reported."""
        condition = _condition_of(self.ctx.ancestors)
        if condition is not None:
            if id(condition) in self._conditions:
                return
            self._conditions.add(id(condition))
        self.report(node, fix=fix, what=what, effect=effect)

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        qualname = ctx.qualname(node.func)
        if qualname == "torch.device" or qualname in _AUTOCAST:
            args = positional(node) or list(node.args)
            if args and is_non_cpu_device_string(args[0].value):
                name = qualname.rpartition(".")[2] if qualname in _AUTOCAST else "device"
                self._report(node, f"torch.{name}({_shown(args[0].value)})", _NAMES)
                return
        if not ctx.imports_torch:
            return
        for name in _DEVICE_KEYWORDS:
            device = keyword(node, name)
            if device is not None and is_non_cpu_device_string(device.value):
                self._report(device, f"{name}={_shown(device.value)}", _NAMES)
        if qualname is not None:
            return
        method = method_name(node)
        if method in _DEVICE_METHODS:
            self._report(node, f".{method}()", _MOVES, fix=_drop_device_call(ctx, node))
        elif method == "to":
            for arg in positional(node):
                if is_non_cpu_device_string(arg.value):
                    self._report(arg, f".to({_shown(arg.value)})", _MOVES)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if not self.ctx.imports_torch:
            return
        operands = [node.left, *(target.comparator for target in node.comparisons)]
        if any(_is_device_type(o) for o in operands) and any(_names_non_cpu(o) for o in operands):
            self._report(node, source_of(node), _TESTS)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        ctx = self.ctx
        qualname = ctx.qualname(node)
        if (qualname is None and node.attr.value not in _DEVICE_FLAGS) or not is_reference(ctx, node):
            return
        if is_torch_name(qualname, *_DEVICE_MODULES):
            self._report(node, ".".join((qualname or "").split(".")[:3]), _USES)
        elif qualname is None and node.attr.value in _DEVICE_FLAGS and ctx.imports_torch:
            self._report(node, f".{node.attr.value}", _TESTS)

    def visit_Name(self, node: cst.Name) -> None:
        qualname = self.ctx.qualname(node)
        if is_torch_name(qualname, *_DEVICE_MODULES) and is_reference(self.ctx, node):
            self._report(node, qualname or "", _USES)


def _shown(node: cst.BaseExpression) -> str:
    value = string_value(node)
    return repr(value) if value is not None else source_of(node)


def _is_device_type(node: cst.BaseExpression) -> bool:
    """``x.device.type`` (or any ``.type`` attribute read, as on a ``torch.device``)."""
    return isinstance(node, cst.Attribute) and node.attr.value == "type"


def _names_non_cpu(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.Tuple | cst.List | cst.Set):
        return any(is_non_cpu_device_string(element.value) for element in node.elements)
    return is_non_cpu_device_string(node)


def _condition_of(ancestors: list[cst.CSTNode]) -> cst.BooleanOperation | None:
    """The outermost ``and``/``or`` the visited node is part of, through the expressions conditions
    are made of (calls, attributes, comparisons, ``not``); None outside one."""
    found = None
    for node in reversed(ancestors[:-1]):
        if not isinstance(node, _CONDITION_PARTS):
            break
        if isinstance(node, cst.BooleanOperation):
            found = node
    return found


def _drop_device_call(ctx, call: cst.Call) -> PendingFix | None:
    """``x.cuda(...)`` -> ``x``: the value is the same, but ``x`` is now returned itself, not a copy.
    ``x = x.cuda()`` would become ``x = x``, so the statement goes (``pass`` if it is alone), and
    ``x: T = x.cuda()`` keeps its annotation alone (``x: T``) where ``x`` is a local or module name;
    in a class body ``x: T`` would drop the class attribute, so there only the call goes."""
    if not isinstance(call.func, cst.Attribute):
        return None
    receiver = source_of(call.func.value)
    message = f"Remove `.{call.func.attr.value}()`"
    ancestors = ctx.ancestors
    assign, line, block = (ancestors[-2], ancestors[-3], ancestors[-4]) if len(ancestors) > 3 else (None,) * 3
    if (
        isinstance(assign, cst.AnnAssign)
        and not _in_class_body(ancestors)
        and assign.value is call
        and isinstance(assign.target, cst.Name)
        and assign.target.value == receiver
    ):
        annotated = f"{receiver}: {source_of(assign.annotation.annotation)}"
        return PendingFix(
            UNSAFE, f"{message}, keeping the annotation of `{receiver}`", (NodeEdit(assign, annotated),)
        )
    rebinds_itself = (
        isinstance(assign, cst.Assign)
        and len(assign.targets) == 1
        and isinstance(assign.targets[0].target, cst.Name)
        and assign.targets[0].target.value == receiver
        and isinstance(line, cst.SimpleStatementLine)
        and len(line.body) == 1
    )
    if not rebinds_itself:
        return PendingFix(UNSAFE, message, (NodeEdit(call, receiver),))
    alone = isinstance(block, cst.IndentedBlock) and len(block.body) == 1
    edit = NodeEdit(assign, "pass") if alone else NodeEdit(line, whole_lines=True)
    return PendingFix(UNSAFE, f"{message} and the statement that rebinds `{receiver}` to itself", (edit,))


def _in_class_body(ancestors: list[cst.CSTNode]) -> bool:
    """Whether the innermost function or class around the node is a class."""
    scope = next((node for node in reversed(ancestors) if isinstance(node, cst.FunctionDef | cst.ClassDef)), None)
    return isinstance(scope, cst.ClassDef)
