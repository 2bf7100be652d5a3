"""TPL002: compilation or graph capture in code that must stay eager."""

from __future__ import annotations

import libcst as cst

from torchperf_lint.fixes import SAFE, NodeEdit, PendingFix
from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit.matching import is_reference, is_torch_name, positional, source_of
from torchperf_lint.toolkit.scopes import dotted

_COMPILERS = (
    "torch.compile",
    "torch.jit.script",
    "torch.jit.trace",
    "torch.jit.trace_module",
    "torch.jit.script_method",
    "torch.jit.freeze",
    "torch.export.export",
    "torch.fx.symbolic_trace",
)
_COMPILER_PACKAGES = ("torch._dynamo", "torch._inductor")
#: Compilers whose removal leaves a function returning the same values.
_EAGER_EQUIVALENT = frozenset({"torch.compile", "torch.jit.script", "torch.jit.script_method"})


class Compilation(Rule):
    code = "TPL002"
    name = "compilation"
    hint = "Remove the compile/script wrapper and benchmark the eager route."
    summary = "`torch.compile`, TorchScript, dynamo or graph capture"
    message = "`{what}` compiles or captures a graph; public routes stay eager"
    why = (
        "The contract promises eager CPU routes. Compilation adds a warm-up the first call pays, "
        "recompiles when shapes or dtypes change, and makes the measured route differ from the one "
        "that runs. Graph capture with `torch.export.export` or `torch.fx.symbolic_trace` is "
        "included: it is the first step of the same machinery."
    )
    example = "@torch.compile\ndef warp(volume): ..."
    use_instead = "def warp(volume): ...  # eager, benchmarked as such"
    notes = (
        "Matches the qualified name however it was imported. Any use of `torch._dynamo` or "
        "`torch._inductor`, imports included, is flagged. `re.compile` and local functions "
        "named `compile` are not torch and are not flagged."
    )
    fix = "safe"
    fix_safety = (
        "A `@torch.compile`, `@torch.jit.script` or `@torch.jit.script_method` decorator is deleted, "
        "and `torch.compile(fn, ...)` or `torch.jit.script(fn)` is replaced by `fn`: the function then "
        "runs eagerly and returns the same values, which is what the contract measures. Tracing, "
        "export and dynamo calls have no fix: they take example inputs or change what is returned."
    )
    valid = (
        "import re\npattern = re.compile('x')\n",
        "def compile(src):\n    return src\ncompile('a')\n",
        "import torch\nclass M:\n    def compile(self):\n        pass\nM().compile()\n",
        "from torch import compile\ndef f(compile):\n    return compile(1)\n",
        "import torch\nx = torch.jit\n",
    )
    invalid = (
        Invalid(
            "import torch\n@torch.compile\ndef f(x):\n    return x\n",
            ((2, 2),),
            fixed="import torch\ndef f(x):\n    return x\n",
        ),
        Invalid(
            "import torch\n@functools.cache\n@torch.compile(mode='max-autotune')\ndef f(x):\n    pass\n",
            ((3, 2),),
            fixed="import torch\n@functools.cache\ndef f(x):\n    pass\n",
        ),
        Invalid(
            "from torch import compile as c\ng = c(f, dynamic=False)\n",
            ((2, 5),),
            fixed="from torch import compile as c\ng = f\n",
        ),
        Invalid("from torch import jit\ng = jit.script(f)\n", ((2, 5),), fixed="from torch import jit\ng = f\n"),
        Invalid("import torch\ng = torch.jit.trace(f, example)\n", ((2, 5),)),
        Invalid("import functools, torch as T\ng = functools.partial(T.compile, f)\n", ((2, 23),)),
        Invalid("import torch._dynamo\n", ((1, 8),)),
        Invalid("import torch\ntorch._dynamo.reset()\n", ((2, 1),)),
    )

    def visit_Name(self, node: cst.Name) -> None:
        self._check_reference(node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._check_reference(node)

    def _check_reference(self, node: cst.Name | cst.Attribute) -> None:
        qualname = self.ctx.qualname(node)
        if qualname is None or not is_reference(self.ctx, node):
            return
        if qualname in _COMPILERS:
            self.report(node, fix=_eager_fix(self.ctx, node, qualname), what=qualname)
        elif is_torch_name(qualname, *_COMPILER_PACKAGES):
            self.report(node, what=_package_of(qualname))

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        parent = self.ctx.parent
        name = dotted(node.name)
        if isinstance(parent, cst.ImportFrom):
            base = dotted(parent.module) if parent.module is not None and not parent.relative else None
            name = f"{base}.{name}" if base else None
        if name is not None and is_torch_name(name, *_COMPILER_PACKAGES):
            self.report(node, what=_package_of(name))


def _eager_fix(ctx, node: cst.CSTNode, qualname: str) -> PendingFix | None:
    """Delete a compiling decorator, or unwrap ``compile(fn, ...)`` to ``fn``; None where neither fits."""
    if qualname not in _EAGER_EQUIVALENT:
        return None
    outer = ctx.ancestors[-2] if len(ctx.ancestors) > 1 else None
    call = outer if isinstance(outer, cst.Call) and outer.func is node else None
    decorator = ctx.ancestors[-3 if call is not None else -2] if len(ctx.ancestors) > 2 else None
    if isinstance(decorator, cst.Decorator):
        return PendingFix(SAFE, f"Remove the `@{qualname}` decorator", (NodeEdit(decorator, whole_lines=True),))
    if call is not None and len(positional(call)) == 1 and call.args[0].keyword is None:
        unwrap = NodeEdit(call, source_of(call.args[0].value))
        return PendingFix(SAFE, f"Call the function eagerly instead of `{qualname}`", (unwrap,))
    return None


def _package_of(qualname: str | None) -> str:
    return ".".join((qualname or "").split(".")[:2])
