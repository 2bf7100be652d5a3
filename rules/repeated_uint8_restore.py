"""TPL107: a uint8 result rounded, clamped or cast more than once."""

from __future__ import annotations

import libcst as cst

from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit import types
from torchperf_lint.toolkit.exemptions import test_files
from torchperf_lint.toolkit.flow import excludes, in_exclusive_arms
from torchperf_lint.toolkit.functions import in_loop
from torchperf_lint.toolkit.matching import int_value, keyword, method_name, positional, walk

_UINT8 = "torch.uint8"
_OTHER_INTEGER_CASTS = frozenset({"long", "int", "short", "char"})
_OTHER_INTEGER_DTYPES = frozenset(
    f"torch.{name}" for name in "int8 int16 int32 int64 short int long uint16 uint32 uint64".split()
)
_CLAMPS = frozenset({"clamp", "clamp_", "clip", "clip_"})
#: Values whose clip is no tensor's restoration.
_NOT_TORCH = (types.ARRAY, types.FRAME)
_CAST, _SATURATE = "cast", "saturate"
_BITWISE = (cst.LeftShift, cst.RightShift, cst.BitAnd, cst.BitOr, cst.BitXor)


class RepeatedUint8Restore(Rule):
    code = "TPL107"
    name = "repeated-uint8-restore"
    hint = "Work in float32 throughout and round, clamp and cast once at the end."
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
        "Two kinds of restoration are counted per tensor: a saturation (a clamp to 0..255 with "
        "`clamp`, `clamp_`, `clip` or `torch.clamp`) and a cast (`.to(torch.uint8)`, `.byte()`, "
        "`.type(torch.uint8)`). Flagged: a second saturation or a second cast of a tensor in a later "
        "statement of the same function, and a saturation inside a loop of a working tensor the loop "
        "carries (`x = p(x).clamp_(0, 255)` restores the same tensor on every iteration); a restore of "
        "each slice's fresh result (`res = f(x[d]).clamp(0, 255)`), or of a name the loop binds to a "
        "value not made from it (`data = items[j]`, also earlier in the same pass) or of its own target "
        "(`for chunk in x.split(n):`, then "
        "`chunk = f(chunk)`), is once per value. A clamp of a value cast to "
        "another integer type (`pos.round().long().clamp(0, 255)`) keeps an index in range and restores "
        "nothing. A clamp followed by a cast, in one statement or two, is one restoration; a bare "
        "cast in a loop (byte views for "
        "serialisation, an image cast for each mask drawn on it) is no restoration at all, even a second "
        "one. Restorations in exclusive paths count once: restores in different "
        "arms of one `if`/`elif`/`else` chain, and a restore in a branch that ends in `return` or `raise`, "
        "which never runs before the code after that branch, so `if fast: return x.clamp(0, "
        "255).byte()` followed by another restore is one per call. A clip of a value known to be a NumPy "
        "array or a pandas object (`np.array(img).clip(0, 255)`) is no tensor's restoration, and neither "
        "is a cast of shifted or masked bits (`(q >> 4).to(torch.uint8)`, `torch.bitwise_and(q, 15).byte()`), "
        "which packs or unpacks integers, nor a byte mask: the cast of a comparison (`(gt > 0).byte()`) "
        "or one that indexes, directly or through a name only read as an index (`pred[m.byte()]`, "
        "`keep = m.byte()` ... `pred[keep]`)."
    ) + test_files(
        "tests clamp and cast to uint8 once per comparison they make, on expectations and results alike,"
        " which are not a kernel's working tensor"
    )
    fix_safety = "No fix: merging the passes changes where rounding happens, which needs a review of the kernel."
    valid = (
        # byte masks, not images: a cast that indexes, directly or through a name, a cast of a comparison
        "import torch\ndef f(pred, gt, m):\n    a = pred[m.byte()]\n    b = gt[m.byte()]\n    return a, b\n",
        "import torch\ndef f(pred, gt, m):\n    keep = m.byte()\n    a = pred[keep]\n    b = gt[keep]\n"
        "    keep = m.to(torch.uint8)\n    return a, b, pred[keep]\n",
        "import torch\ndef f(gt):\n    pos = (gt > 0).byte()\n    neg = (gt < 0).byte()\n    return pos, neg\n",
        # bare casts in a loop convert for drawing: directly, through a name, through a view
        "import torch\ndef f(image, masks, draw):\n    for m in masks:\n        draw(image.to(torch.uint8), m)\n"
        "        draw(torch.zeros_like(image.to(torch.uint8)), m)\n",
        "import torch\ndef f(image, masks, draw):\n    for m in masks:\n        shown = image.permute(2, 0, 1)\n"
        "        draw(shown.byte(), m)\n        draw(shown.byte() * 0, m)\n",
        "import torch\ndef f(x):\n    return (x + 0.5).floor().clamp(0, 255).to(torch.uint8)\n",
        # unpacking and packing nibbles: casts of bit fields, no image restored
        "import torch\ndef unpack(packed):\n    low = (packed & 0b1111).to(torch.uint8)\n"
        "    high = (packed >> 4).to(torch.uint8)\n    return torch.stack([low, high], -1)\n",
        "import torch\ndef pack(q):\n    if q.is_contiguous():\n"
        "        out = (q[:, 1::2] << 4 | q[:, ::2]).byte()\n"
        "    out = (q[:, ::2] | q[:, 1::2] << 4).byte()\n    return out\n",
        "import torch\ndef split(q):\n    low = torch.bitwise_and(q, 15).to(torch.uint8)\n"
        "    high = q.bitwise_right_shift(4).to(torch.uint8)\n    return low, high\n",
        "import torch\ndef f(x, out):\n    for d in range(x.shape[1]):\n        res = g(x[:, d]).clamp(0, 255)\n"
        "        out[:, d] = res.to(torch.uint8)\n    return out\n",
        "import torch\ndef f(img, mask):\n    a = img.clamp(0, 255).byte()\n"
        "    b = mask.to(torch.uint8)\n    return a, b\n",
        "import torch\ndef f(x):\n    return x.clamp(0, 1)\n",
        "import torch\ndef f(e):\n    e = torch.clamp(e, 0, 255)\n    return e.to(torch.uint8)\n",
        "import torch\nfor i, t in enumerate(out):\n    t = t.type(torch.uint8)\n",
        "import torch\ndef f(img, scale, half):\n    if half:\n"
        "        return torch.round(img * scale).clamp_(0.0, 255.0).to(torch.uint8)\n"
        "    return torch.round(img.float() * scale).clamp_(0.0, 255.0).to(torch.uint8)\n",
        # indices kept in range, and a name bound to a new value each pass
        "import torch\ndef f(data_list, out):\n    for j in range(len(out)):\n        data = data_list[j]\n"
        "        idx = data.pos.round().long().clamp(0, 255)\n        out[j] = idx\n",
        "import torch\ndef f(pos, n):\n    for _ in range(n):\n"
        "        pos = torch.clamp(pos.to(torch.int64), 0, 255)\n"
        "    return pos\n",
        "import torch\ndef f(items, out):\n    for j, item in enumerate(items):\n        img = items[j]\n"
        "        out[j] = img.clamp(0, 255).to(torch.uint8)\n    return out\n",
        "import torch\ndef f(images, n, out):\n    for chunk in images.split(n):\n"
        "        chunk = resize(chunk.to(torch.float32))\n"
        "        out.append(chunk.round_().clamp_(0, 255).to(torch.uint8))\n",
        "import torch\ndef f(shn, parts, out):\n    for idx in parts:\n        q = (shn[idx] / 8 + 0.5) * 256\n"
        "        q = torch.clamp(torch.trunc(q), 0, 255)\n        out.append(q.to(torch.uint8))\n",
        "import torch\nimport numpy as np\ndef f(img, mode):\n    if mode == 'fast':\n"
        "        x = img.clamp(0, 255)\n    elif mode == 'legacy':\n        x = np.array(img).clip(0, 255)\n"
        "    else:\n        x = img.clamp(0, 255)\n    return x\n",
    )
    invalid = (
        Invalid(  # a cast bound to a name that is also read as a value restores it
            "import torch\ndef f(pred, m):\n    keep = m.byte()\n    out = pred[keep] * keep\n"
            "    return out, m.byte()\n",
            ((5, 17),),
        ),
        Invalid(  # a clamped cast in a loop is a restoration; a bare cast after the loop is still counted
            "import torch\ndef f(img, masks):\n    for m in masks:\n        a = img.clamp(0, 255).byte()\n"
            "        b = torch.clamp(img, 0, 255).byte()\n    return img.byte(), img.to(torch.uint8)\n",
            ((5, 13), (5, 13), (6, 12), (6, 24)),
        ),
        Invalid(  # bits shifted after the cast: the cast itself still restores the float working tensor
            "import torch\ndef f(x):\n    a = x.clamp(0, 255).byte()\n"
            "    b = (x * 0.5).clamp(0, 255).byte() >> 1\n    return a, b\n",
            ((4, 9), (4, 9)),
        ),
        Invalid(  # arms exclude each other, but the restore after the ``if`` follows either
            "import torch\ndef f(img, fast):\n    if fast:\n        img = img.clamp(0, 255)\n    else:\n"
            "        img = blur(img).clamp(0, 255)\n    return img.clamp(0, 255).to(torch.uint8)\n",
            ((7, 12),),
        ),
        Invalid(
            "import torch\ndef f(x, passes):\n    for p in passes:\n        x = p(x.long()).clamp(0, 255)\n"
            "    return x\n",
            ((4, 13),),
        ),
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
        Invalid(
            "import torch\ndef f(x):\n    a = x.to(torch.uint8)\n    b = x.float().byte()\n    return a, b\n",
            ((4, 9),),
        ),
        Invalid(
            "import torch\ndef f(x, half):\n    if half:\n        x = x.clamp(0, 255)\n"
            "    return x.clamp(0, 255).to(torch.uint8)\n",
            ((5, 12),),
        ),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        #: Per function: the first statement restoring each (subject, kind), with its ancestors.
        self._seen: list[dict[tuple[str, str], tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]]] = [{}]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._seen.append({})

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._seen.pop()

    def visit_Call(self, node: cst.Call) -> None:
        kind = self._restoration(node) if self.ctx.imports_torch else None
        if kind is None or (kind == _CAST and in_loop(self.ctx) is not None and not _after_clamp(node)):
            return  # a bare cast in a loop converts for drawing or serialising; it restores nothing
        if kind == _CAST and self._makes_mask(node):
            return
        subject = self._subject(node)
        statement = next((a for a in reversed(self.ctx.ancestors) if isinstance(a, cst.SimpleStatementLine)), None)
        earlier = self._seen[-1].get((subject, kind)) if subject else None
        repeated = (
            earlier is not None
            and earlier[0] is not statement
            and not excludes(earlier[1], self.ctx.ancestors)
            and not in_exclusive_arms(earlier[1], self.ctx.ancestors)
        )
        if repeated or (kind == _SATURATE and self._carried_through_loop(subject)):
            self.report(node, what=_describe(node), subject=subject or "the tensor")
        if subject and statement is not None and (earlier is None or not repeated):
            self._seen[-1][(subject, kind)] = (statement, tuple(self.ctx.ancestors))

    def _makes_mask(self, cast: cst.Call) -> bool:
        """A byte mask, not an image restored: the cast of a comparison (``(x > 0).byte()``), or one
        that indexes a tensor, directly (``pred[m.byte()]``) or through a name every read of which
        does (``keep = m.byte()`` ... ``pred[keep]``)."""
        receiver = cast.func.value if isinstance(cast.func, cst.Attribute) else None
        if isinstance(receiver, cst.Comparison):
            return True
        ancestors = self.ctx.ancestors
        if len(ancestors) > 1 and isinstance(ancestors[-2], cst.Index):
            return True
        statement = ancestors[-2] if len(ancestors) > 1 else None
        function = self.ctx.enclosing_function()
        if not (isinstance(statement, cst.Assign) and statement.value is cast and function is not None):
            return False
        names = [t.target.value for t in statement.targets if isinstance(t.target, cst.Name)]
        return len(names) == 1 == len(statement.targets) and _only_indexes(function, names[0])

    def _carried_through_loop(self, subject: str | None) -> bool:
        """A saturation in a loop whose working tensor the loop rebinds (``x = p(x).clamp_(0, 255)``):
        the next iteration restores the same tensor again. One restore per slice of a fresh tensor
        each iteration (``res = f(x[d]).clamp(0, 255)``), or of a name bound each time to a value not
        made from it (``data = items[i]``, also earlier in the same pass), or of the loop's own target
        (``for chunk in x.split(n):``), is once per value, not again."""
        loop = in_loop(self.ctx)
        if loop is None or subject is None or not isinstance(loop, cst.For | cst.While):
            return False
        targets = walk(loop.target) if isinstance(loop, cst.For) else ()
        if any(isinstance(n, cst.Name) and n.value == subject for n in targets):
            return False  # ``for chunk in x.split(n): chunk = f(chunk)``: each pass starts from a new slice
        if self._bound_fresh_earlier_in_pass(loop, subject):
            return False
        return any(
            isinstance(node, cst.Assign | cst.AugAssign | cst.AnnAssign)
            and any(isinstance(name, cst.Name) and name.value == subject for name in _targets(node))
            and _mentions(node, subject)
            for node in walk(loop.body, into_functions=False)
        )

    def _bound_fresh_earlier_in_pass(self, loop: cst.For | cst.While, subject: str) -> bool:
        """``q = (chunk / 8 + 0.5) * 256`` then ``q = torch.clamp(q, 0, 255)``: earlier in the same pass,
        a statement of the loop body binds the subject to a value not made from it, so each pass
        restores a new value."""
        ancestors = self.ctx.ancestors
        current = next((ancestors[i + 1] for i in range(len(ancestors) - 1) if ancestors[i] is loop.body), None)
        for statement in loop.body.body:  # type: ignore[union-attr]
            if statement is current:
                return False
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if (
                        isinstance(small, cst.Assign | cst.AnnAssign)
                        and any(isinstance(n, cst.Name) and n.value == subject for n in _targets(small))
                        and not _mentions(small, subject)
                    ):
                        return True
        return False

    def _restoration(self, node: cst.Call) -> str | None:
        """``"cast"`` for a cast to uint8, ``"saturate"`` for a clamp to 0..255, else None."""
        method = method_name(node)
        qualname = self.ctx.qualname(node.func)
        if method in ("to", "type"):
            target = (positional(node) or [keyword(node, "dtype")])[0]
            is_uint8 = target is not None and self.ctx.qualname(target.value) == _UINT8  # type: ignore[arg-type]
            return _CAST if is_uint8 else None
        if method == "byte" and qualname is None:
            return _CAST
        if qualname is None and method in _CLAMPS and types.kind_of(self.ctx, node.func.value) in _NOT_TORCH:  # type: ignore[attr-defined]
            return None  # ``np.array(img).clip(0, 255)``: NumPy's or pandas' clip, no tensor restored
        if qualname == "torch.clamp" or (qualname is None and method in _CLAMPS):
            bounds = positional(node)[1:] if qualname == "torch.clamp" else positional(node)
            values = [_number(b.value) for b in bounds] or [_number(a.value) for a in node.args if a.keyword]
            clamped = node.args[0].value if qualname == "torch.clamp" and node.args else node.func.value  # type: ignore[attr-defined]
            return _SATURATE if values == [0, 255] and not self._cast_to_other_integers(clamped) else None
        return None

    def _cast_to_other_integers(self, node: cst.BaseExpression) -> bool:
        """``pos.round().long()``: a value cast to an integer type other than uint8 and then clamped to
        0..255 is an index or a count kept in range, not an image restored to uint8."""
        while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            method = node.func.attr.value
            if method in _OTHER_INTEGER_CASTS:
                return True
            if method in ("to", "type"):
                target = (positional(node) or [keyword(node, "dtype")])[0]
                if target is not None and self.ctx.qualname(target.value) in _OTHER_INTEGER_DTYPES:
                    return True
            node = node.func.value
        return False

    def _subject(self, node: cst.BaseExpression) -> str | None:
        """The name a restoration chain starts from: ``out`` in ``torch.floor(out + .5).clamp(0, 255)``.
        None when the chain shifts or masks bits (``(q >> 4).to(torch.uint8)``,
        ``torch.bitwise_and(q, 15).byte()``): that packs or unpacks integers and restores no image."""
        while True:
            if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _BITWISE):
                return None
            if isinstance(node, cst.Call) and (method_name(node) or "").startswith("bitwise_"):
                return None
            if isinstance(node, cst.Call) and (self.ctx.qualname(node.func) or "").startswith("torch.bitwise_"):
                return None
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


def _only_indexes(function: cst.FunctionDef, name: str) -> bool:
    """Every read of ``name`` in ``function`` is a subscript's index (``pred[keep]``), and there is one."""
    mentions = indexes = bindings = 0
    for node in walk(function.body):
        if isinstance(node, cst.Index) and isinstance(node.value, cst.Name) and node.value.value == name:
            indexes += 1
        elif (
            isinstance(node, cst.AssignTarget) and isinstance(node.target, cst.Name) and node.target.value == name
        ):
            bindings += 1
        elif isinstance(node, cst.Name) and node.value == name:
            mentions += 1  # each index and binding also counts its name here
    return indexes > 0 and mentions == indexes + bindings


def _targets(node: cst.Assign | cst.AugAssign | cst.AnnAssign) -> list[cst.BaseExpression]:
    if isinstance(node, cst.Assign):
        return [name for target in node.targets for name in walk(target.target)]  # type: ignore[misc]
    return list(walk(node.target))  # type: ignore[arg-type]


def _mentions(statement: cst.CSTNode, name: str) -> bool:
    """Whether the value ``statement`` assigns reads ``name`` (``x = p(x)``, ``x += 1``)."""
    if isinstance(statement, cst.AugAssign):
        return True
    value = statement.value  # type: ignore[attr-defined]
    return value is not None and any(isinstance(n, cst.Name) and n.value == name for n in walk(value))


def _number(node: cst.BaseExpression) -> float | None:
    value = int_value(node)
    if value is not None:
        return value
    return float(node.value) if isinstance(node, cst.Float) else None


def _describe(node: cst.Call) -> str:
    return f".{method_name(node)}(...)" if method_name(node) else "torch.clamp(...)"


def _after_clamp(cast: cst.Call) -> bool:
    """The chain the cast reads clamps first: ``x.clamp(0, 255).byte()``, ``torch.clamp(x, 0, 255).byte()``."""
    node = cast.func.value if isinstance(cast.func, cst.Attribute) else None
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        if node.func.attr.value in _CLAMPS:
            return True
        node = node.func.value
    return False
