"""TPL103: reading tensor values back into Python on every iteration of a loop."""

from __future__ import annotations

import libcst as cst

from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit.exemptions import test_files
from torchperf_lint.toolkit.flow import ends_with, loop_state, read_names, runs_at_most_once
from torchperf_lint.toolkit.functions import enclosing_loops, in_loop
from torchperf_lint.toolkit.matching import method_name, walk
from torchperf_lint.toolkit.types import ARRAY, TENSOR, kind_of

_TO_PYTHON = frozenset({"item", "tolist"})
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


_LEAVING = (cst.Break, cst.Return, cst.Raise)


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
        "iterable, which runs once): `.item()` and `.tolist()`; `bool()`, `int()` or `float()` of a "
        "reduction (`t.sum()`, `torch.max(t)`, `t.any()`...) or of a value known to be a tensor "
        "(`float(t[i])` with `t: torch.Tensor`, a loop target over an annotated `List[Tuple[Tensor, "
        "...]]`, or the result of a function or `self.` method of the same file annotated to return a "
        "tensor); and an `if` or `while` test that calls a reduction or `torch.equal`/`torch.allclose`, "
        "or tests a known tensor (`if mask:`). One condition is one finding: a read inside a test that "
        "is reported is not reported again. Exempt: values known to be NumPy arrays (annotated "
        "`np.ndarray`, `npt.NDArray`, `NDArray[...]`, bound from `np.*` or `.numpy()`, or a chain "
        "through an `np.*` call), whose reads are no tensor reads; a bare `.numpy()`, which is a "
        "zero-copy view of a CPU tensor; code that runs at most once per loop because its branch, or "
        "the loop body, ends in `return`, `break` or `raise`; a read that decides when its loop stops "
        "from state the loop carries from one pass to the next (a `while` test on values the body "
        "recomputes, `changed = bool(...)` under `while changed:`, or an `if` that leaves the loop on "
        "a convergence test), since that value does not exist before the loop and cannot be read once "
        "outside it (a test on the loop target alone, `if torch.any(p < 0): break`, is still flagged); "
        "other torch calls (`torch.distributed.get_rank()`), which return Python values. Files that "
        "never import torch are skipped."
    ) + test_files(
        "tests read results back with `.item()`, `.tolist()` or `bool(...)` case by case to compare and "
        "report them, which costs test time, not kernel time"
    )
    fix_safety = "No fix: hoisting the read out of the loop changes the algorithm, not just a call."
    valid = (
        "import torch\ntotal = x.sum().item()\n",
        "import torch\nfor i in range(int(x.sum())):\n    pass\n",
        "import torch\nvalues = [v for v in x.tolist()]\n",
        "for row in rows:\n    total += row.item()\n",
        "import torch\nfor i in range(n):\n    k = int(i)\n",
        "import torch\nfor b in buckets:\n    if torch.distributed.get_rank() == 0:\n        print(b)\n",
        "import torch\nimport numpy as np\ndef f(values: np.ndarray, img):\n    for i in range(0, 8, 4):\n"
        "        g(values[i : i + 4].tolist())\n        if values.any():\n            pass\n",
        "import torch\nimport numpy as np\ndef f(t):\n    arr = np.asarray(t)\n    for i in range(3):\n"
        "        g(arr.sum().item(), t.numpy())\n",
        "import torch\nfor _ in range(10):\n    i = torch.randint(0, 9, (1,)).item()\n    break\n",
        "import torch\ndef f():\n    for _ in range(10):\n        if ok():\n"
        "            j = torch.randint(0, 9, (1,)).item()\n            return j\n",
        "import torch\ndef f(t: torch.Tensor):\n    for i in range(3):\n        n = int(t.shape[0])\n",
        "import torch\nfor t in targets:\n    if flag:\n        bad = t.tolist()\n"
        "        torch._assert(False, f'invalid box {bad}')\n",
        "import torch\nfor t in targets:\n    v = t.item()\n    raise ValueError(v)\n",
        "import torch\nimport numpy as np\nfrom numpy.typing import NDArray\ndef f(a: NDArray[np.float32]):\n"
        "    for i in range(3):\n        v = a[i].item()\n        if a.any():\n            pass\n",
        "import torch\nimport numpy.typing as npt\ndef f(a: npt.NDArray):\n    for row in range(3):\n"
        "        g(a[row].tolist(), float(a.sum()))\n",
        "import torch\nimport numpy as np\nfor t in tensors:\n    v = np.asarray(t).max().item()\n",
        "import torch\ndef f(x, kernel):\n    while x.max() > 0:\n        x = x - kernel\n    return x\n",
        "import torch\ndef f(edges, step):\n    old = -torch.ones_like(edges)\n"
        "    while ((old - edges).abs() != 0).any():\n        old = edges\n        edges = step(edges)\n",
        "import torch\ndef f(output, mask, step, k):\n    changed = True\n    while changed:\n"
        "        previous = output\n        for _ in range(k):\n            output = step(output)\n"
        "        changed = bool((output > previous).any())\n    return output\n",
        "import torch\ndef f(roots, step):\n    for _ in range(4):\n        candidate = step(roots)\n"
        "        if not bool((candidate != roots).any()):\n            break\n        roots = candidate\n",
    )
    invalid = (
        Invalid("import torch\nfor t in tensors:\n    total += t.item()\n", ((3, 14),)),
        Invalid("import torch\nwhile queue and ready.any():\n    handle(queue.pop())\n", ((2, 7),)),
        Invalid("import torch\nfor p in planes:\n    if torch.any(p < 0):\n        break\n", ((3, 8),)),
        Invalid("import torch\nsizes = [int(t.sum()) for t in tensors]\n", ((2, 10),)),
        Invalid(
            "import torch\ndef f(t: torch.Tensor, mask: torch.Tensor):\n    for i in range(3):\n"
            "        a, b, c = float(t[i]), int(t), bool(t)\n        if mask[i]:\n            pass\n",
            ((4, 19), (4, 32), (4, 40), (5, 12)),
        ),
        Invalid(
            "import torch\nfor _ in range(10):\n    i = torch.randint(0, 9, (1,)).item()\n    for j in x:\n"
            "        break\n    if ok():\n        continue\n",
            ((3, 9),),
        ),
        Invalid(
            "import torch\nfor _ in range(10):\n    for j in x:\n        y = j.item()\n        break\n",
            ((4, 13),),
        ),
        Invalid(
            "import torch\ndef f(n, stops, step):\n    for i in range(n):\n        mask = step(i)\n"
            "        if i + 1 in stops and not bool(mask.any()):\n            continue\n",
            ((5, 12),),
        ),
        Invalid(
            "import torch\ndef f(planes):\n    for p in planes:\n        if torch.any(p < 0):\n"
            "            break\n",
            ((4, 12),),
        ),
        Invalid(
            "import torch\nfrom typing import List, Tuple\nclass R:\n"
            "    def recover(self) -> List[Tuple[torch.Tensor, torch.Tensor]]:\n        return []\n"
            "    def run(self, best):\n        for scores, counts in self.recover():\n"
            "            best = max(best, float(scores[0]), int(counts[0]))\n        return best\n",
            ((8, 30), (8, 48)),
        ),
        Invalid(
            "import torch\ndef order() -> torch.Tensor:\n    return torch.randperm(4)\n"
            "def f(img):\n    for fn_id in order():\n        if fn_id == 0:\n            img = img + 1\n",
            ((6, 12),),
        ),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        #: ids of the ``if``/``while`` tests reported as a whole: a read inside one is that finding.
        self._reported_tests: set[int] = set()

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        converts = isinstance(node.func, cst.Name) and node.func.value in _BUILTINS and len(node.args) == 1
        if not (method in _TO_PYTHON or converts) or not self.ctx.imports_torch or not self._repeats():
            return
        if self._reported_tests and any(id(a) in self._reported_tests for a in self.ctx.ancestors):
            return  # one condition, one finding: the branch on it is already reported
        if self._decides_stop_of_read():
            return
        if method in _TO_PYTHON:
            if kind_of(self.ctx, node.func.value) != ARRAY:  # type: ignore[attr-defined]
                self.report(node, what=f".{method}()")
            return
        value = node.args[0].value
        if self._reads_tensor(value) or kind_of(self.ctx, value) == TENSOR:
            self.report(node, what=f"{node.func.value}(...)")  # type: ignore[attr-defined]

    def visit_If(self, node: cst.If) -> None:
        if self.ctx.imports_torch and self._repeats() and not self._decides_stop(node, in_loop(self.ctx)):
            self._check_test(node.test)

    def visit_While(self, node: cst.While) -> None:
        if self.ctx.imports_torch and not self._decides_stop(node, node):
            self._check_test(node.test)

    def _decides_stop(self, owner: cst.If | cst.While, loop: cst.CSTNode | None) -> bool:
        """Whether ``owner``'s test decides when ``loop`` stops (a ``while`` test, or an ``if`` whose
        branch leaves with ``break``, ``return`` or ``raise``) from state the loop carries between
        passes: such a value does not exist before the loop, so it cannot be read once outside it."""
        if not isinstance(loop, cst.For | cst.While):
            return False
        if isinstance(owner, cst.If) and not ends_with(owner.body, _LEAVING):
            return False
        return loop_state(self.ctx, loop).depends_on_carried(owner.test)

    def _decides_stop_of_read(self) -> bool:
        """For a read being visited: whether it sits in a test that decides when its loop stops, or is
        assigned to a name the test of the innermost loop, a ``while``, reads (``changed = bool(...)``
        under ``while changed:``), computed from carried state."""
        ancestors = self.ctx.ancestors
        for index in range(len(ancestors) - 2, 0, -1):
            node, child = ancestors[index], ancestors[index + 1]
            if isinstance(node, cst.If | cst.While) and child is node.test:
                loop = node if isinstance(node, cst.While) else in_loop(self.ctx)
                return self._decides_stop(node, loop)
            if isinstance(node, cst.Assign) and child is node.value:
                loop = in_loop(self.ctx)
                targets = {n for t in node.targets for n in read_names(t.target)}
                return (
                    isinstance(loop, cst.While)
                    and bool(targets & read_names(loop.test))
                    and loop_state(self.ctx, loop).depends_on_carried(node.value)
                )
            if isinstance(node, cst.BaseSmallStatement | cst.BaseCompoundStatement):
                return False
        return False

    def _repeats(self) -> bool:
        """Inside a loop, on a path that some enclosing loop of the same function can run again."""
        innermost = in_loop(self.ctx)
        if innermost is None:
            return False
        ancestors = self.ctx.ancestors
        loops = [innermost, *(n for n in enclosing_loops(self.ctx) if n is not innermost)]
        return any(not runs_at_most_once(ancestors, loop) for loop in loops)

    def _check_test(self, test: cst.BaseExpression) -> None:
        calls = (n for n in walk(test, into_functions=False) if isinstance(n, cst.Call))
        if any(self._reads_tensor(n) for n in calls) or any(
            kind_of(self.ctx, operand) == TENSOR for operand in _operands(test)
        ):
            self._reported_tests.add(id(test))
            self.report(test, what="a branch on a tensor value")

    def _reads_tensor(self, node: cst.BaseExpression) -> bool:
        if not isinstance(node, cst.Call):
            return False
        qualname = self.ctx.qualname(node.func)
        if qualname is not None:
            return qualname in TORCH_READS
        if method_name(node) not in REDUCTIONS:
            return False
        return kind_of(self.ctx, node.func.value) != ARRAY  # type: ignore[attr-defined]


def _operands(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The values a test's truth is read from: ``a`` and ``b`` in ``not a or b``."""
    if isinstance(test, cst.BooleanOperation):
        return [*_operands(test.left), *_operands(test.right)]
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _operands(test.expression)
    return [test]
