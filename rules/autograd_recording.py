"""TPL001: a primitive that makes torch record autograd."""

from __future__ import annotations

import libcst as cst

from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit.matching import is_literal, keyword, method_name, positional

_ENABLING_CALLS = {
    "torch.enable_grad": "torch.enable_grad",
    "torch.autograd.enable_grad": "torch.enable_grad",
    "torch.autograd.grad": "torch.autograd.grad",
    "torch.autograd.backward": "torch.autograd.backward",
}
_AUTOGRAD_FUNCTION = {"torch.autograd.Function", "torch.autograd.function.Function"}


class AutogradRecording(Rule):
    code = "TPL001"
    fix_safety = (
        "No fix: dropping `requires_grad=True` or a `.backward()` changes what the caller can "
        "train, and the right place for `torch.no_grad()` is a judgement about the whole route."
    )
    name = "autograd-recording"
    hint = "Drop requires_grad/backward from the primitive; run its body under torch.no_grad()."
    summary = "Code inside a primitive records autograd"
    message = "`{what}` records autograd; primitives run without building a graph"
    why = (
        "A primitive is a pure eager kernel. Recording autograd makes every operation keep its "
        "inputs alive for a backward pass nobody asked for, which costs memory and time on every "
        "call. Callers that need gradients own that choice; the kernel must not make it for them."
    )
    example = "grid = torch.zeros(3, requires_grad=True)"
    use_instead = "grid = torch.zeros(3)"
    valid = (
        "import torch\nwith torch.no_grad():\n    y = x * 2\n",
        "import torch\n@torch.inference_mode()\ndef f(x):\n    return x\n",
        "import torch\ntorch.set_grad_enabled(False)\n",
        "import torch\nt = torch.ones(3, requires_grad=False)\n",
        "import torch\ny = x.detach()\n",
        "def backward(x):\n    return x.backward()\n",
        "import torch\nx.requires_grad = False\n",
    )
    invalid = (
        Invalid("import torch\nt = torch.ones(3, requires_grad=True)\n", ((2, 19),)),
        Invalid("import torch\nx.requires_grad_()\n", ((2, 1),)),
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
            self.report(node, what=_ENABLING_CALLS[qualname])
        elif qualname == "torch.set_grad_enabled":
            args = positional(node) or list(node.args)
            if not (args and is_literal(args[0].value, "False")):
                self.report(node, what="torch.set_grad_enabled(True)")
        requires = keyword(node, "requires_grad")
        if requires is not None and is_literal(requires.value, "True"):
            if qualname is not None and qualname.startswith("torch."):
                self.report(requires, what="requires_grad=True")
        if qualname is None and ctx.imports_torch:
            self._check_method(node)

    def _check_method(self, node: cst.Call) -> None:
        method = method_name(node)
        if method == "backward":
            self.report(node, what=".backward()")
        elif method == "requires_grad_":
            args = node.args
            if not (args and is_literal(args[0].value, "False")):
                self.report(node, what=".requires_grad_()")

    def visit_Assign(self, node: cst.Assign) -> None:
        if not (self.ctx.imports_torch and is_literal(node.value, "True")):
            return
        for target in node.targets:
            if isinstance(target.target, cst.Attribute) and target.target.attr.value == "requires_grad":
                self.report(node, what=".requires_grad = True")

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        for base in node.bases:
            if self.ctx.qualname(base.value) in _AUTOGRAD_FUNCTION:
                self.report(base, what="torch.autograd.Function")
