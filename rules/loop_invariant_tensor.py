"""TPL106: a tensor built from the same values on every iteration of a loop."""

from __future__ import annotations

import libcst as cst

from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit.matching import walk

_TORCH_CONSTRUCTORS = "tensor as_tensor from_numpy arange linspace logspace meshgrid full ones zeros empty eye"
CONSTRUCTORS = frozenset(
    [f"torch.{name}" for name in _TORCH_CONSTRUCTORS.split()] + ["torch.nn.functional.affine_grid"]
)


class LoopInvariantTensor(Rule):
    code = "TPL106"
    name = "loop-invariant-tensor"
    hint = "Build the tensor once before the loop and reuse it."
    summary = "A tensor built from loop-invariant values inside a loop"
    message = "`{callee}(...)` builds the same tensor on every iteration; build it once before the loop"
    why = (
        "Constructors allocate and fill a new tensor each time they run. When every argument is "
        "the same on each iteration, the loop repeats an allocation (and for grids, a full "
        "computation) whose result never changes: build it once and reuse it, or preallocate."
    )
    example = (
        "for volume in batch:\n    grid = F.affine_grid(theta, size)\n    out.append(F.grid_sample(volume, grid))"
    )
    use_instead = (
        "grid = F.affine_grid(theta, size)\nfor volume in batch:\n    out.append(F.grid_sample(volume, grid))"
    )
    notes = (
        "A call to a torch constructor (`tensor`, `as_tensor`, `from_numpy`, `arange`, `linspace`, "
        "`meshgrid`, `full`, `ones`, `zeros`, `empty`, `eye`, `F.affine_grid`) inside a `for` or "
        "`while` body is flagged when no name in its arguments is bound inside the loop (targets, "
        "assignments, `with ... as`, walrus) and its arguments make no calls."
    )
    fix_safety = "No fix: hoisting needs a name for the hoisted value and a check that nothing mutates it."
    valid = (
        "import torch\nfor i in range(4):\n    t = torch.full((2,), i)\n",
        "import torch\nfor v in volumes:\n    buf = torch.empty_like(v)\n",
        "import torch\nt = torch.zeros(3)\nfor i in range(4):\n    t += i\n",
        "import torch\nfor i in range(4):\n    n = i * 2\n    t = torch.arange(n)\n",
    )
    invalid = (
        Invalid("import torch\nfor v in volumes:\n    scale = torch.tensor([0.5, 2.0])\n", ((3, 13),)),
        Invalid(
            "import torch\nimport torch.nn.functional as F\nwhile busy():\n    g = F.affine_grid(theta, size)\n",
            ((4, 9),),
        ),
        Invalid(
            "import torch\nfor v in volumes:\n    out = torch.empty((n, c), dtype=torch.float32)\n", ((3, 11),)
        ),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._bound: dict[int, frozenset[str]] = {}

    def visit_Call(self, node: cst.Call) -> None:
        callee = self.ctx.qualname(node.func)
        if callee not in CONSTRUCTORS:
            return
        loop = self._enclosing_loop()
        if loop is None:
            return
        used = [n for arg in node.args for n in walk(arg.value, into_functions=False)]
        if any(isinstance(n, cst.Call) for n in used):
            return
        names = {n.value for n in used if isinstance(n, cst.Name)}
        if not names & self._bound_in(loop):
            self.report(node, callee=callee)

    def _enclosing_loop(self) -> cst.For | cst.While | None:
        """The innermost loop whose body holds the visited call (within the same function)."""
        child = self.ctx.ancestors[-1]
        for node in reversed(self.ctx.ancestors[:-1]):
            if isinstance(node, cst.FunctionDef | cst.Lambda | cst.ClassDef):
                return None
            if isinstance(node, cst.For | cst.While) and child is node.body:
                return node
            child = node
        return None

    def _bound_in(self, loop: cst.For | cst.While) -> frozenset[str]:
        key = id(loop)
        if key not in self._bound:
            roots = [loop.body] + ([loop.target] if isinstance(loop, cst.For) else [])
            self._bound[key] = frozenset(name for root in roots for name in _bound_names(root))
        return self._bound[key]


def _bound_names(root: cst.CSTNode) -> set[str]:
    names: set[str] = set()
    for node in walk(root, into_functions=False):
        targets: list[cst.CSTNode] = []
        if isinstance(node, cst.AssignTarget | cst.AugAssign | cst.AnnAssign | cst.For | cst.CompFor):
            targets.append(node.target)
        elif isinstance(node, cst.AsName):
            targets.append(node.name)
        elif isinstance(node, cst.NamedExpr):
            targets.append(node.target)
        for target in targets:
            names.update(n.value for n in walk(target) if isinstance(n, cst.Name))
        if root is not node and isinstance(node, cst.Name) and isinstance(root, cst.Name | cst.Tuple | cst.List):
            names.add(node.value)
    if isinstance(root, cst.Name):
        names.add(root.value)
    return names
