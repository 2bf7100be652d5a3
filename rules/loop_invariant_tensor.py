"""TPL106: a tensor built from the same values on every iteration of a loop."""

from __future__ import annotations

import libcst as cst

from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit import writes
from torchperf_lint.toolkit.exemptions import TEST_FILES as TEST_FILES_NOTE
from torchperf_lint.toolkit.flow import runs_at_most_once
from torchperf_lint.toolkit.matching import method_name, walk

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
        "`while` body is flagged when no name in its arguments is bound or changed inside the loop "
        "(targets, assignments, `with ... as`, walrus, `items.append(...)` and other in-place changes) "
        "and its arguments make no calls. Exempt, because the tensor is meant to be new each time: a "
        "buffer filled in place on the spot (`torch.empty(1).uniform_(a, b)`), one that is kept "
        "(`out.append(torch.zeros(n))`, `self.cache[k] = ...`), and one bound to a name the loop body "
        "writes in place (`rx = torch.eye(3)` then `rx[1, 1] = c`), keeps or returns. Also exempt: a "
        "constructor that runs at most once per loop, in a branch or loop body that ends in `return`, "
        "`break` or `raise`."
    ) + TEST_FILES_NOTE
    fix_safety = "No fix: hoisting needs a name for the hoisted value and a check that nothing mutates it."
    valid = (
        "import torch\nfor i in range(4):\n    t = torch.full((2,), i)\n",
        "import torch\nfor v in volumes:\n    buf = torch.empty_like(v)\n",
        "import torch\nt = torch.zeros(3)\nfor i in range(4):\n    t += i\n",
        "import torch\nfor i in range(4):\n    n = i * 2\n    t = torch.arange(n)\n",
        "import torch\nfor _ in range(10):\n    area = torch.empty(1).uniform_(0.1, 1.0).item()\n",
        "import torch\nfor a in angles:\n    rx = torch.eye(3)\n    rx[1, 1] = a\n    mats.append(rx)\n",
        "import torch\nfor level in levels:\n    sigmas.append(torch.full((2, 3), 1.6))\n",
        "import torch\ndef f(steps):\n    for step in steps:\n        if step is None:\n"
        "            return torch.zeros(3)\n",
        "import torch\nfor line in lines:\n    labels.append(parse(line))\n    t = torch.tensor(labels)\n",
        "import torch\nwhile True:\n    v = torch.tensor([1.0, 2.0])[:, None]\n    break\n",
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
        Invalid(
            "import torch\nfor boxes in batch:\n    labels = torch.arange(n, device=d)\n"
            "    labels = labels.view(1, -1)\n    keep.append(labels[0])\n",
            ((3, 14),),
        ),
        Invalid(
            "import torch\nfor kps in points:\n    if kps is None:\n        continue\n"
            "    eye = torch.eye(2).expand(len(kps), -1, -1)\n",
            ((5, 11),),
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
        changed = writes.of(self.ctx, loop.body)
        if names & (self._bound_in(loop) | changed.mutated | changed.written):
            return
        if runs_at_most_once(self.ctx.ancestors, loop) or self._is_fresh_buffer(changed):
            return
        self.report(node, callee=callee)

    def _is_fresh_buffer(self, changed: writes.Writes) -> bool:
        """Whether the new tensor is meant to be new each time: filled in place on the spot
        (``torch.empty(1).uniform_()``), kept (``out.append(torch.zeros(n))``), or bound to a name the
        loop body writes in place, keeps or returns."""
        ancestors = self.ctx.ancestors
        value: cst.CSTNode = ancestors[-1]
        for parent in reversed(ancestors[:-1]):
            if isinstance(parent, cst.Attribute) and parent.value is value:
                value = parent
            elif isinstance(parent, cst.Call) and parent.func is value:
                method = method_name(parent) or ""
                if method.endswith("_") and not method.endswith("__"):
                    return True
                value = parent
            elif isinstance(parent, cst.Subscript) and parent.value is value:
                value = parent
            elif isinstance(parent, cst.Arg):
                outer = ancestors[ancestors.index(parent) - 1]
                return isinstance(outer, cst.Call) and method_name(outer) in writes.KEEPING_METHODS
            elif isinstance(parent, cst.Assign | cst.AnnAssign):
                targets = [t.target for t in parent.targets] if isinstance(parent, cst.Assign) else [parent.target]
                return any(
                    not isinstance(target, cst.Name)
                    or target.value in changed.written | changed.kept | changed.returned
                    for target in targets
                )
            else:
                return False
        return False

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
