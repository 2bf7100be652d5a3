"""TPL004: a primitive that picks another path when gradients are wanted."""

from __future__ import annotations

import re

import libcst as cst

from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit.exemptions import tests_apply
from torchperf_lint.toolkit.matching import walk
from torchperf_lint.toolkit.traversal import in_source_order

#: A file mentioning none of these cannot read autograd state (aliases keep the name in their import).
_STATE_TEXT = re.compile(r"requires_grad|is_grad_enabled|is_inference_mode_enabled")
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
    message = "branching on `{what}`{via} adds a graph-preserving route; primitives have one eager route"
    why = (
        "A second route taken only when gradients are wanted is a route no benchmark measured "
        "and whose results can differ from the eager one. Primitives reject inputs that need a "
        "graph in their public validation and otherwise run one route."
    )
    example = "if volume.requires_grad:\n    return slow_differentiable(volume)"
    use_instead = 'if volume.requires_grad:\n    raise ValueError("volume must not require grad")'
    notes = (
        "Flagged: an `if`, `while` or conditional expression whose test reads `.requires_grad`, "
        "`torch.is_grad_enabled()` or `torch.is_inference_mode_enabled()`, directly, through a local "
        "bound to such a read (`recording = torch.is_grad_enabled()` then `if recording:`), or through "
        "a function of the same file that returns one (`if _needs_graph(x):`). One test gives one "
        "finding, however many reads it combines. Exempt: a test whose branch only raises, which is "
        "validation rather than a second route."
    ) + tests_apply(
        "a branch on `requires_grad` or the grad mode in a test picks between two routes as a kernel "
        "would, and the contract rules out a route chosen by autograd state wherever it is written; a "
        "test that needs both calls the kernel under `torch.no_grad()` and without it"
    )
    valid = (
        "import torch\nif x.requires_grad:\n    raise ValueError('no grad')\n",
        "import torch\nflag = x.requires_grad\n",
        "def is_grad_enabled():\n    return 1\nif is_grad_enabled():\n    pass\n",
        "import torch\ndef f(x):\n    recording = torch.is_grad_enabled()\n    recording = False\n"
        "    if recording:\n        pass\n",
        "import torch\ndef _size(x):\n    return x.numel()\nif _size(x):\n    pass\n",
    )
    invalid = (
        Invalid("import torch\nif x.requires_grad:\n    y = slow(x)\n", ((2, 4),)),
        Invalid("import torch\ny = a(x) if torch.is_grad_enabled() else b(x)\n", ((2, 13),)),
        Invalid(
            "from torch import is_inference_mode_enabled as inf\nif not inf():\n    pass\n",
            ((2, 8),),
        ),
        Invalid(
            "import torch\ndef f(x):\n    recording = torch.is_grad_enabled()\n    if recording:\n"
            "        return slow(x)\n    return fast(x)\n",
            ((4, 8),),
        ),
        Invalid(
            "import torch\ndef _needs_graph(x):\n    return x.requires_grad\ndef f(x):\n"
            "    if _needs_graph(x):\n        return slow(x)\n",
            ((5, 8),),
        ),
        Invalid(
            "import torch\nif a.requires_grad or b.requires_grad and torch.is_grad_enabled():\n    y = slow(a)\n",
            ((2, 4),),
        ),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._state_names: list[set[str]] = [set()]  # per function: locals holding autograd state

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._state_names.append(set())

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._state_names.pop()

    def leave_Assign(self, node: cst.Assign) -> None:
        """After the right-hand side is read, a name bound to autograd state holds it."""
        if not self.ctx.mentions(_STATE_TEXT):
            return
        reads = self._first_read(node.value) is not None
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                (self._state_names[-1].add if reads else self._state_names[-1].discard)(target.target.value)

    def visit_If(self, node: cst.If) -> None:
        if not _only_raises(node.body):
            self._check_test(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._check_test(node.test)

    def visit_While(self, node: cst.While) -> None:
        self._check_test(node.test)

    def _check_test(self, test: cst.BaseExpression) -> None:
        """One finding per test, however many autograd reads it combines."""
        if not self.ctx.mentions(_STATE_TEXT):
            return
        found = self._first_read(test, names=self._state_names[-1])
        if found is not None:
            node, what, via = found
            self.report(node, what=what, via=via)

    def _first_read(
        self, expression: cst.BaseExpression, names: set[str] = frozenset()
    ) -> tuple[cst.CSTNode, str, str] | None:
        ctx = self.ctx
        for found in in_source_order(expression):
            if isinstance(found, cst.Attribute) and found.attr.value == "requires_grad":
                if ctx.imports_torch and ctx.qualname(found) is None:
                    return found, ".requires_grad", ""
            elif isinstance(found, cst.Call):
                qualname = ctx.qualname(found.func)
                if qualname in _GRAD_STATE_CALLS:
                    return found, f"{qualname}()", ""
                if isinstance(found.func, cst.Name) and _is_state_helper(ctx, found.func.value):
                    return found, f"{found.func.value}()", ", which returns autograd state,"
            elif isinstance(found, cst.Name) and found.value in names:
                return found, found.value, ", which holds autograd state,"
        return None


def _is_state_helper(ctx, name: str) -> bool:
    """Whether ``name`` is a module-level function of this file that returns autograd state;
    each function is analysed once, and only when something calls it in a test or binding."""
    key = ("grad-state-helper", id(ctx.module), name)
    found = ctx.facts.get(key)
    if found is None:
        functions = ctx.facts.get(("module-functions", id(ctx.module)))
        if functions is None:
            functions = ctx.facts[("module-functions", id(ctx.module))] = {
                statement.name.value: statement
                for statement in ctx.module.body
                if isinstance(statement, cst.FunctionDef)
            }
        function = functions.get(name)  # type: ignore[union-attr]
        found = ctx.facts[key] = function is not None and _returns_state(ctx, function)
    return found  # type: ignore[return-value]


def _returns_state(ctx, function: cst.FunctionDef) -> bool:
    for node in walk(function.body, into_functions=False):
        if isinstance(node, cst.Return) and node.value is not None:
            for part in walk(node.value):
                if isinstance(part, cst.Attribute) and part.attr.value == "requires_grad":
                    return True
                if isinstance(part, cst.Call) and ctx.qualname(part.func) in _GRAD_STATE_CALLS:
                    return True
    return False


def _only_raises(body: cst.BaseSuite) -> bool:
    statements = body.body
    return bool(statements) and all(
        isinstance(stmt, cst.SimpleStatementLine) and all(isinstance(s, cst.Raise) for s in stmt.body)
        for stmt in statements
    )
