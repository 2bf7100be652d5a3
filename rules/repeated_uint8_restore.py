"""TPL107: a uint8 result rounded, clamped or cast more than once."""

from __future__ import annotations

import libcst as cst

from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit.functions import in_loop
from torchperf_lint.toolkit.matching import int_value, keyword, method_name, positional

_UINT8 = "torch.uint8"
_CLAMPS = frozenset({"clamp", "clamp_", "clip", "clip_"})


class RepeatedUint8Restore(Rule):
    code = "TPL107"
    name = "repeated-uint8-restore"
    summary = "The same working tensor restored to uint8 more than once"
    message = "`{what}` restores `{subject}` to uint8 again; convert to float32 once and saturate once at the end"
    why = (
        "uint8 kernels work in float32 and restore once: round half up, clamp to 0..255, cast. "
        "Restoring after every pass (or on every loop iteration) adds a full pass each time and "
        "rounds intermediate results, so the output drifts from the single-rounding reference."
    )
    example = "out = blur(x).clamp(0, 255)\nout = sharpen(out).clamp(0, 255).to(torch.uint8)"
    use_instead = "out = sharpen(blur(x))\nout = out.add_(0.5).clamp_(0, 255).to(torch.uint8)"
    notes = (
        "A restoration is `.to(torch.uint8)`, `.byte()`, `.type(torch.uint8)`, or a clamp to "
        "0..255 (`clamp`, `clamp_`, `clip`, `torch.clamp`). Flagged: a restoration of a tensor that "
        "an earlier statement of the same function already restored, and any restoration inside a "
        "loop. Several calls in one statement (`round().clamp(0, 255).to(torch.uint8)`) are one "
        "restoration."
    )
    fix_safety = "No fix: merging the passes changes where rounding happens, which needs a review of the kernel."
    valid = (
        "import torch\ndef f(x):\n    return (x + 0.5).floor().clamp(0, 255).to(torch.uint8)\n",
        "import torch\ndef f(img, mask):\n    a = img.clamp(0, 255).byte()\n"
        "    b = mask.to(torch.uint8)\n    return a, b\n",
        "import torch\ndef f(x):\n    return x.clamp(0, 1)\n",
    )
    invalid = (
        Invalid(
            "import torch\ndef f(x):\n    x = x.clamp(0, 255)\n    x = g(x)\n"
            "    return x.clamp(0, 255).to(torch.uint8)\n",
            ((5, 12),),
        ),
        Invalid(
            "import torch\ndef f(x, passes):\n    for p in passes:\n"
            "        x = p(x).clamp_(0, 255)\n    return x\n",
            ((4, 13),),
        ),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._seen: list[dict[str, cst.CSTNode]] = [{}]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._seen.append({})

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._seen.pop()

    def visit_Call(self, node: cst.Call) -> None:
        if not self.ctx.imports_torch or not self._restores(node) or self._inside_restoration():
            return
        subject = self._subject(node)
        statement = next((a for a in reversed(self.ctx.ancestors) if isinstance(a, cst.SimpleStatementLine)), None)
        earlier = self._seen[-1].get(subject) if subject else None
        if in_loop(self.ctx) is not None or (earlier is not None and earlier is not statement):
            self.report(node, what=_describe(node), subject=subject or "the tensor")
        if subject and statement is not None:
            self._seen[-1].setdefault(subject, statement)

    def _restores(self, node: cst.Call) -> bool:
        method = method_name(node)
        qualname = self.ctx.qualname(node.func)
        if method in ("to", "type"):
            target = (positional(node) or [keyword(node, "dtype")])[0]
            return target is not None and self.ctx.qualname(target.value) == _UINT8  # type: ignore[arg-type]
        if method == "byte" and qualname is None:
            return True
        if qualname == "torch.clamp" or (qualname is None and method in _CLAMPS):
            bounds = positional(node)[1:] if qualname == "torch.clamp" else positional(node)
            values = [_number(b.value) for b in bounds] or [_number(a.value) for a in node.args if a.keyword]
            return values == [0, 255]
        return False

    def _inside_restoration(self) -> bool:
        """Only the outermost restoring call of a chain counts (``x.clamp(0, 255).to(uint8)`` is one)."""
        parent = self.ctx.parent
        while isinstance(parent, cst.Attribute | cst.Call):
            if isinstance(parent, cst.Call) and self._restores(parent):
                return True
            index = self.ctx.ancestors.index(parent)
            parent = self.ctx.ancestors[index - 1] if index > 0 else None
        return False

    def _subject(self, node: cst.BaseExpression) -> str | None:
        """The name a restoration chain starts from: ``out`` in ``torch.floor(out + .5).clamp(0, 255)``."""
        while True:
            if isinstance(node, cst.Call):
                if isinstance(node.func, cst.Attribute) and self.ctx.qualname(node.func) is None:
                    node = node.func.value
                elif node.args:
                    node = node.args[0].value
                else:
                    return None
            elif isinstance(node, cst.BinaryOperation):
                node = node.left
            elif isinstance(node, cst.Attribute | cst.Subscript):
                node = node.value
            else:
                return node.value if isinstance(node, cst.Name) else None


def _number(node: cst.BaseExpression) -> float | None:
    value = int_value(node)
    if value is not None:
        return value
    return float(node.value) if isinstance(node, cst.Float) else None


def _describe(node: cst.Call) -> str:
    return f".{method_name(node)}(...)" if method_name(node) else "torch.clamp(...)"
