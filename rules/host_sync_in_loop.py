"""TPL103: reading tensor values back into Python on every iteration of a loop."""

from __future__ import annotations

import libcst as cst

from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit.functions import in_loop
from torchperf_lint.toolkit.matching import method_name, walk

_TO_PYTHON = frozenset({"item", "tolist", "numpy"})
_BUILTINS = frozenset({"bool", "int", "float"})
#: Tensor methods whose result is a scalar tensor that Python then reads.
REDUCTIONS = frozenset(
    {
        "sum",
        "max",
        "min",
        "mean",
        "any",
        "all",
        "norm",
        "prod",
        "argmax",
        "argmin",
        "count_nonzero",
        "amax",
        "amin",
    }
)
#: torch functions whose result Python reads as a tensor value (others may return plain ints or bools).
TORCH_READS = frozenset(
    ["torch.equal", "torch.allclose", "torch.isclose"] + [f"torch.{name}" for name in sorted(REDUCTIONS)]
)


class HostSyncInLoop(Rule):
    code = "TPL103"
    name = "host-sync-in-loop"
    hint = "Compute the value once with a vectorised reduction before the loop."
    summary = "Tensor values read back into Python inside a loop"
    message = "`{what}` reads a tensor value into Python on every iteration; compute it once outside the loop"
    why = (
        "`.item()`, `.tolist()`, `.numpy()`, `int(t)` or an `if` on a tensor make Python wait for the "
        "value and convert it, once per iteration. In a loop over slices or passes that serialises "
        "the work and adds interpreter overhead per element; a vectorised reduction before the loop "
        "reads the value once."
    )
    example = "for plane in volume:\n    if plane.max() > 0:\n        total += plane.sum().item()"
    use_instead = "keep = volume.amax(dim=(1, 2)) > 0\ntotal = volume[keep].sum().item()"
    notes = (
        "Flagged inside `for`/`while` bodies, `while` tests and comprehensions (not a loop's own "
        "iterable, which runs once): `.item()`, `.tolist()`, `.numpy()`; `bool()`, `int()`, "
        "`float()` of a reduction (`t.sum()`, `torch.max(t)`, `t.any()`...); and an `if` or `while` "
        "test that calls a reduction or `torch.equal`/`torch.allclose`. Other torch calls "
        "(`torch.distributed.get_rank()`) return plain Python values and are not flagged. "
        "Files that never import torch are skipped."
    )
    fix_safety = "No fix: hoisting the read out of the loop changes the algorithm, not just a call."
    valid = (
        "import torch\ntotal = x.sum().item()\n",
        "import torch\nfor i in range(int(x.sum())):\n    pass\n",
        "import torch\nvalues = [v for v in x.tolist()]\n",
        "for row in rows:\n    total += row.item()\n",
        "import torch\nfor i in range(n):\n    k = int(i)\n",
        "import torch\nfor b in buckets:\n    if torch.distributed.get_rank() == 0:\n        print(b)\n",
    )
    invalid = (
        Invalid("import torch\nfor t in tensors:\n    total += t.item()\n", ((3, 14),)),
        Invalid("import torch\nwhile x.max() > 0:\n    x = x - 1\n", ((2, 7),)),
        Invalid("import torch\nfor p in planes:\n    if torch.any(p < 0):\n        break\n", ((3, 8),)),
        Invalid("import torch\nsizes = [int(t.sum()) for t in tensors]\n", ((2, 10),)),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if not self.ctx.imports_torch or in_loop(self.ctx) is None:
            return
        method = method_name(node)
        if method in _TO_PYTHON:
            self.report(node, what=f".{method}()")
        elif isinstance(node.func, cst.Name) and node.func.value in _BUILTINS and len(node.args) == 1:
            if self._reads_tensor(node.args[0].value):
                self.report(node, what=f"{node.func.value}(...)")

    def visit_If(self, node: cst.If) -> None:
        self._check_test(node.test)

    def visit_While(self, node: cst.While) -> None:
        self._check_test(node.test, loop_test=True)

    def _check_test(self, test: cst.BaseExpression, loop_test: bool = False) -> None:
        if not self.ctx.imports_torch or (not loop_test and in_loop(self.ctx) is None):
            return
        if any(isinstance(n, cst.Call) and self._reads_tensor(n) for n in walk(test, into_functions=False)):
            self.report(test, what="a branch on a tensor value")

    def _reads_tensor(self, node: cst.BaseExpression) -> bool:
        if not isinstance(node, cst.Call):
            return False
        qualname = self.ctx.qualname(node.func)
        if qualname is not None:
            return qualname in TORCH_READS
        return method_name(node) in REDUCTIONS
