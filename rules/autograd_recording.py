"""TPL001: a primitive that makes torch record autograd."""

from __future__ import annotations

import libcst as cst

from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit.matching import is_literal, keyword, method_name, positional, source_of

_ENABLING_CALLS = {
    "torch.enable_grad": ("torch.enable_grad", "turns autograd recording on"),
    "torch.autograd.enable_grad": ("torch.enable_grad", "turns autograd recording on"),
    "torch.autograd.grad": ("torch.autograd.grad", "runs a backward pass"),
    "torch.autograd.backward": ("torch.autograd.backward", "runs a backward pass"),
}
_AUTOGRAD_FUNCTION = {"torch.autograd.Function", "torch.autograd.function.Function"}
#: Learnable parameters: ``requires_grad=True`` on them (or on the tensor they wrap) is their default.
_PARAMETERS = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})
_TURNS_ON = "can turn autograd recording on"


class AutogradRecording(Rule):
    code = "TPL001"
    fix_safety = (
        "No fix: dropping `requires_grad=True` or a `.backward()` changes what the caller can "
        "train, and the right place for `torch.no_grad()` is a judgement about the whole route."
    )
    name = "autograd-recording"
    hint = "Drop requires_grad/backward from the primitive; run its body under torch.no_grad()."
    summary = "Code that makes torch record autograd or run a backward pass"
    message = "`{what}` {effect}; kernel code runs without autograd"
    why = (
        "A primitive is a pure eager kernel. Recording autograd makes every operation keep its "
        "inputs alive for a backward pass nobody asked for, which costs memory and time on every "
        "call. Callers that need gradients own that choice; the kernel must not make it for them."
    )
    example = "grid = torch.zeros(3, requires_grad=True)"
    use_instead = "grid = torch.zeros(3)"
    notes = (
        "Flagged anywhere in the linted files, since a kernel package has no business building a "
        "graph: `requires_grad=True` on a torch factory, `.requires_grad_()` or `.requires_grad_(True)`, "
        "`x.requires_grad = True`, `torch.enable_grad`, `torch.set_grad_enabled(True)` (or a flag), "
        "`.backward()`, `torch.autograd.grad`/`backward`, and subclasses of `torch.autograd.Function`. "
        "Exempt: learnable parameters (`nn.Parameter(t, requires_grad=True)`, or a factory with "
        "`requires_grad=True` wrapped by `nn.Parameter`), which record nothing until a model is "
        "trained; passing a flag along (`out.requires_grad_(inp.requires_grad)`), which keeps the "
        "caller's choice. Test files are exempt by default (`tests/`, `test_*.py`, `*_test.py`, "
        "`conftest.py`): tests call `.backward()` to prove a result can feed training."
    )
    valid = (
        "import torch\nwith torch.no_grad():\n    y = x * 2\n",
        "import torch\n@torch.inference_mode()\ndef f(x):\n    return x\n",
        "import torch\ntorch.set_grad_enabled(False)\n",
        "import torch\nt = torch.ones(3, requires_grad=False)\n",
        "import torch\ny = x.detach()\n",
        "def backward(x):\n    return x.backward()\n",
        "import torch\nx.requires_grad = False\n",
        "import torch\nfrom torch import nn\nclass M(nn.Module):\n    def __init__(self, n):\n"
        "        self.w = nn.Parameter(torch.ones(n), requires_grad=True)\n"
        "        self.b = nn.Parameter(torch.tensor([0.5], requires_grad=True))\n",
        "import torch\ndef f(data, requires_grad):\n"
        "    out = torch.as_tensor(data).requires_grad_(requires_grad)\n"
        "    return out.detach().clone().requires_grad_(data.requires_grad)\n",
    )
    invalid = (
        Invalid("import torch\nt = torch.ones(3, requires_grad=True)\n", ((2, 19),)),
        Invalid("import torch\nx.requires_grad_()\ny.requires_grad_(True)\n", ((2, 1), (3, 1))),
        Invalid("import torch\nx.requires_grad = True\n", ((2, 1),)),
        Invalid("import torch as T\nwith T.enable_grad():\n    pass\n", ((2, 6),)),
        Invalid("from torch import set_grad_enabled\nset_grad_enabled(True)\n", ((2, 1),)),
        Invalid("import torch.autograd as ag\nag.grad(y, x)\n", ((2, 1),)),
        Invalid("import torch\nloss.backward()\n", ((2, 1),)),
        Invalid("from torch import autograd\nclass F(autograd.Function):\n    pass\n", ((2, 9),)),
    )

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        qualname = ctx.qualname(node.func)
        if qualname in _ENABLING_CALLS:
            what, effect = _ENABLING_CALLS[qualname]
            self.report(node, what=what, effect=effect)
        elif qualname == "torch.set_grad_enabled":
            args = positional(node) or list(node.args)
            if not (args and is_literal(args[0].value, "False")):
                shown = source_of(args[0].value) if args else ""
                self.report(node, what=f"torch.set_grad_enabled({shown})", effect=_TURNS_ON)
        requires = keyword(node, "requires_grad")
        if requires is not None and is_literal(requires.value, "True") and not self._is_parameter(node):
            if qualname is not None and qualname.startswith("torch."):
                self.report(
                    requires, what="requires_grad=True", effect="makes torch record autograd for this tensor"
                )
        if qualname is None and ctx.imports_torch:
            self._check_method(node)

    def _is_parameter(self, node: cst.Call) -> bool:
        """``nn.Parameter(..., requires_grad=True)``, or a factory call that is its argument."""
        if self.ctx.qualname(node.func) in _PARAMETERS:
            return True
        parent, grandparent = self.ctx.parent, self.ctx.ancestors[-3] if len(self.ctx.ancestors) > 2 else None
        return (
            isinstance(parent, cst.Arg)
            and isinstance(grandparent, cst.Call)
            and self.ctx.qualname(grandparent.func) in _PARAMETERS
        )

    def _check_method(self, node: cst.Call) -> None:
        method = method_name(node)
        if method == "backward":
            self.report(node, what=".backward()", effect="runs a backward pass")
        elif method == "requires_grad_":
            args = node.args
            if not args or is_literal(args[0].value, "True"):
                self.report(node, what=".requires_grad_()", effect="makes torch record autograd for this tensor")

    def visit_Assign(self, node: cst.Assign) -> None:
        if not (self.ctx.imports_torch and is_literal(node.value, "True")):
            return
        for target in node.targets:
            if isinstance(target.target, cst.Attribute) and target.target.attr.value == "requires_grad":
                self.report(
                    node, what=".requires_grad = True", effect="makes torch record autograd for this tensor"
                )

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        for base in node.bases:
            if self.ctx.qualname(base.value) in _AUTOGRAD_FUNCTION:
                self.report(base, what="torch.autograd.Function", effect="defines a backward pass for autograd")
