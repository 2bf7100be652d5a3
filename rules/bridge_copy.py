"""TPL105: NumPy/Torch bridges that copy where a zero-copy view exists."""

from __future__ import annotations

import libcst as cst

from torchperf_lint.fixes import UNSAFE, NodeEdit, PendingFix
from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit.functions import parameters
from torchperf_lint.toolkit.matching import method_name, positional

_ARRAY_ANNOTATIONS = frozenset({"numpy.ndarray", "torch.Tensor", "numpy.typing.NDArray"})
#: Calls that evidently return an array or a tensor (a call into numpy or torch may return a scalar).
_NUMPY_FACTORIES = (
    "array asarray ascontiguousarray zeros ones empty full arange linspace load stack concatenate frombuffer "
    "fromfile zeros_like ones_like empty_like full_like copy moveaxis transpose reshape meshgrid"
)
_TORCH_FACTORIES = (
    "tensor as_tensor from_numpy zeros ones empty full arange linspace rand randn randint stack cat zeros_like "
    "ones_like empty_like full_like rand_like randn_like eye where clone"
)
ARRAY_FACTORIES = frozenset(
    [f"numpy.{name}" for name in _NUMPY_FACTORIES.split()] + [f"torch.{name}" for name in _TORCH_FACTORIES.split()]
)
_NUMPY_COPIES = frozenset({"numpy.array"})


class BridgeCopy(Rule):
    code = "TPL105"
    name = "bridge-copy"
    hint = "Use torch.from_numpy/torch.as_tensor, or drop the extra copy."
    summary = "A copying NumPy/Torch bridge where a zero-copy one exists"
    message = "`{what}` copies an existing array or tensor; {instead}"
    why = (
        "`torch.tensor(x)` always copies, even when `x` is already an array or tensor, and "
        "`np.array(t.numpy())` or `.numpy().copy()` on a fresh result copy a buffer nobody else "
        "holds. `torch.from_numpy`/`torch.as_tensor` and `Tensor.numpy()` share memory; the copy is "
        "a full pass over the volume that buys nothing."
    )
    example = "weights = torch.tensor(np.load(path))"
    use_instead = "weights = torch.from_numpy(np.load(path))"
    notes = (
        "`torch.tensor` is flagged when its argument is evidently an array or tensor: an array or "
        "tensor factory of `numpy` or `torch` (`np.load`, `np.zeros`, `torch.ones`...), a "
        "`.numpy()` result, or a name this function bound to one of those or annotated as "
        "`np.ndarray`/`torch.Tensor`. Literals (`torch.tensor([1, 2])`) and values of unknown type "
        "are not flagged. `.numpy().copy()` is flagged only on a fresh result "
        "(`f(x).numpy().copy()`), where nothing else can see the buffer."
    )
    fix = UNSAFE
    fix_safety = (
        "`torch.tensor(...)` becomes `torch.as_tensor(...)` with the same arguments (unsafe: the "
        "result now shares memory with the argument, so later writes to either are seen by both). "
        "The NumPy-side copies have no fix."
    )
    valid = (
        "import torch\nt = torch.tensor([1.0, 2.0])\n",
        "import torch\ndef f(values):\n    return torch.tensor(values)\n",
        "import numpy as np\nimport torch\ndef f(t):\n    a = t.numpy().copy()\n    return a\n",
        "import torch\nimport numpy as np\nt = torch.from_numpy(np.zeros(3))\n",
        "import torch\nseed = torch.tensor(torch.cuda.initial_seed())\n",
    )
    invalid = (
        Invalid(
            "import numpy as np\nimport torch\nt = torch.tensor(np.zeros(3), dtype=torch.float32)\n",
            ((3, 5),),
            fixed="import numpy as np\nimport torch\nt = torch.as_tensor(np.zeros(3), dtype=torch.float32)\n",
        ),
        Invalid(
            "import numpy as np\nimport torch\ndef f(a: np.ndarray):\n    return torch.tensor(a)\n",
            ((4, 12),),
            fixed="import numpy as np\nimport torch\ndef f(a: np.ndarray):\n    return torch.as_tensor(a)\n",
        ),
        Invalid("import numpy as np\nimport torch\na = np.array(t.numpy())\n", ((3, 5),)),
        Invalid("import torch\na = (x * 2).numpy().copy()\n", ((2, 5),)),
        Invalid("import torch\ndef f(x):\n    y = torch.ones(3)\n    return torch.tensor(y)\n", ((4, 12),)),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._arrays: list[set[str]] = [set()]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        annotated = {
            p.name.value
            for p in parameters(node)
            if p.annotation is not None and self._is_array_annotation(p.annotation.annotation)
        }
        self._arrays.append(annotated)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._arrays.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                names = self._arrays[-1]
                if self._is_array(node.value):
                    names.add(target.target.value)
                else:
                    names.discard(target.target.value)

    def visit_Call(self, node: cst.Call) -> None:
        qualname = self.ctx.qualname(node.func)
        args = positional(node)
        if qualname == "torch.tensor" and args and self._is_array(args[0].value):
            self.report(
                node,
                fix=self._as_tensor_fix(node),
                what="torch.tensor(...)",
                instead="use `torch.as_tensor`/`torch.from_numpy`",
            )
        elif qualname in _NUMPY_COPIES and args and _is_numpy_call(args[0].value) and len(node.args) == 1:
            self.report(node, what="np.array(t.numpy())", instead="`t.numpy()` is already an array")
        elif method_name(node) == "copy" and not node.args and self.ctx.imports_torch:
            receiver = node.func.value  # type: ignore[attr-defined]
            if _is_numpy_call(receiver) and isinstance(receiver.func.value, cst.Call | cst.BinaryOperation):
                self.report(node, what=".numpy().copy()", instead="the fresh result's buffer is already private")

    def _is_array(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Name):
            return node.value in self._arrays[-1]
        if not isinstance(node, cst.Call):
            return False
        if _is_numpy_call(node):
            return True
        return self.ctx.qualname(node.func) in ARRAY_FACTORIES

    def _is_array_annotation(self, node: cst.BaseExpression) -> bool:
        target = node.value if isinstance(node, cst.Subscript) else node
        return self.ctx.qualname(target) in _ARRAY_ANNOTATIONS  # type: ignore[arg-type]

    def _as_tensor_fix(self, node: cst.Call) -> PendingFix | None:
        if not isinstance(node.func, cst.Attribute):
            return None
        return PendingFix(UNSAFE, "Use `torch.as_tensor`", (NodeEdit(node.func.attr, "as_tensor"),))


def _is_numpy_call(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Call) and method_name(node) == "numpy" and not node.args
