"""TPL004: a primitive that picks another path when gradients are wanted."""

from __future__ import annotations

import libcst as cst

from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit.matching import walk

_GRAD_STATE_CALLS = {
    "torch.is_grad_enabled",
    "torch.is_inference_mode_enabled",
    "torch.autograd.grad_mode.is_grad_enabled",
}


class GraphPreservingFallback(Rule):
    code = "TPL004"
    fix_safety = (
        "No fix: the fallback branch has to be deleted by hand once the caller is known not to need "
        "gradients, and which branch to keep is not visible in the code."
    )
    name = "graph-preserving-fallback"
    hint = "Delete the autograd-dependent branch; the primitive has one eager route."
    summary = "Branching on autograd state to choose a route"
    message = "branching on `{what}` adds a graph-preserving route; primitives have one eager route"
    why = (
        "A second route taken only when gradients are wanted is a route no benchmark measured "
        "and whose results can differ from the eager one. Primitives reject inputs that need a "
        "graph in their public validation and otherwise run one route."
    )
    example = "if volume.requires_grad:\n    return slow_differentiable(volume)"
    use_instead = 'if volume.requires_grad:\n    raise ValueError("volume must not require grad")'
    notes = "A test whose branch only raises is validation, not a fallback, and is not flagged."
    valid = (
        "import torch\nif x.requires_grad:\n    raise ValueError('no grad')\n",
        "import torch\nflag = x.requires_grad\n",
        "def is_grad_enabled():\n    return 1\nif is_grad_enabled():\n    pass\n",
    )
    invalid = (
        Invalid("import torch\nif x.requires_grad:\n    y = slow(x)\n", ((2, 4),)),
        Invalid("import torch\ny = a(x) if torch.is_grad_enabled() else b(x)\n", ((2, 13),)),
        Invalid(
            "from torch import is_inference_mode_enabled as inf\nif not inf():\n    pass\n",
            ((2, 8),),
        ),
    )

    def visit_If(self, node: cst.If) -> None:
        if not _only_raises(node.body):
            self._check_test(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._check_test(node.test)

    def visit_While(self, node: cst.While) -> None:
        self._check_test(node.test)

    def _check_test(self, test: cst.BaseExpression) -> None:
        ctx = self.ctx
        for found in walk(test):
            if isinstance(found, cst.Attribute) and found.attr.value == "requires_grad":
                if ctx.imports_torch and ctx.qualname(found) is None:
                    self.report(found, what=".requires_grad")
            elif isinstance(found, cst.Call) and ctx.qualname(found.func) in _GRAD_STATE_CALLS:
                self.report(found, what=f"{ctx.qualname(found.func)}()")


def _only_raises(body: cst.BaseSuite) -> bool:
    statements = body.body
    return bool(statements) and all(
        isinstance(stmt, cst.SimpleStatementLine) and all(isinstance(s, cst.Raise) for s in stmt.body)
        for stmt in statements
    )
