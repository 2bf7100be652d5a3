"""TPL005: validation re-added inside a caller-prevalidated router."""

from __future__ import annotations

import re

import libcst as cst

from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit.exemptions import tests_apply
from torchperf_lint.toolkit.functions import is_prevalidated
from torchperf_lint.toolkit.matching import source_of

_VALIDATOR = re.compile(r"^_*(validate|check|ensure|assert)(_|$)")
_VALIDATION_ERRORS = {
    "ValueError",
    "TypeError",
    "IndexError",
    "KeyError",
    "LookupError",
    "AssertionError",
}


class Revalidation(Rule):
    code = "TPL005"
    options = (
        "- `prevalidated`: globs of qualified function names (`pkg.module.Class.method`) treated as "
        "caller-prevalidated, besides `# torchperf: prevalidated` on the `def` line."
    )
    fix_safety = (
        "No fix: deleting a check is only right once the public entry is known to perform the same "
        "check, which the linter cannot see across modules."
    )
    name = "revalidation"
    hint = "Move the check to the public function and delete it here."
    summary = "Validation inside a caller-prevalidated function"
    message = "`{what}` re-validates inside caller-prevalidated `{function}`; validate once at the public entry"
    why = (
        "Public functions validate their arguments once. Routers behind them are documented as "
        "caller-prevalidated so the hot path does dispatch and kernel work only; checks added "
        "back there run on every call of every route and drift from the public ones."
    )
    example = "def _route(volume):  # torchperf: prevalidated\n    assert volume.ndim == 5"
    use_instead = "def _route(volume):  # torchperf: prevalidated\n    return _sample(volume)"
    notes = (
        "A function is caller-prevalidated when its `def` line carries `# torchperf: prevalidated` "
        "or its qualified name (`pkg.module.Class.method`) matches a glob in the `prevalidated` "
        "setting. Flagged: `assert`, raising ValueError/TypeError/IndexError/KeyError/LookupError/"
        "AssertionError outside an `except` block, and calls to `validate_*`, `check_*`, "
        "`ensure_*`, `assert_*` (leading underscores allowed, so `torch._check` too). "
        "Exempt, because they are dispatch, not validation: an empty-batch fast path "
        "(`if x.shape[0] == 0: return x`) and an identity fast path (`if matrix is None: return "
        "volume`), which return a valid result for a valid input instead of rejecting one; a "
        "`try`/`except` that falls back to another route; and any `raise` inside an `except` block, "
        "which reports or translates a failure of the work that just ran rather than checking the "
        "arguments before it."
    ) + tests_apply(
        "the rule fires only in functions marked caller-prevalidated (pragma or glob), and a test "
        "helper that carries the mark promises, like any router, that its caller has validated"
    )
    valid = (
        "def public(x):\n    if x.ndim != 5:\n        raise ValueError('x')\n    return _r(x)\n",
        "def _r(x):  # torchperf: prevalidated\n    try:\n        return fast(x)\n"
        "    except RuntimeError:\n        return slow(x)\n",
        "def _r(x):  # torchperf: prevalidated\n    if x.shape[0] == 0:\n        return x\n    return fast(x)\n",
        "def _r(x, matrix):  # torchperf: prevalidated\n    if matrix is None:\n        return x\n"
        "    return warp(x, matrix)\n",
        "def _r(x):  # torchperf: prevalidated\n    try:\n        return fast(x)\n    except KeyError as error:\n"
        "        raise ValueError(f'no route for {x.dtype}') from error\n",
    )
    invalid = (
        Invalid("def _r(x):  # torchperf: prevalidated\n    assert x.ndim == 5\n", ((2, 5),)),
        Invalid(
            "def _r(x):  # torchperf: prevalidated\n    if x.ndim != 5:\n        raise ValueError('rank')\n",
            ((3, 9),),
        ),
        Invalid(
            "import torch\ndef _r(x):  # torchperf: prevalidated\n    torch._check(x.ndim == 5)\n",
            ((3, 5),),
        ),
        Invalid("def _r(x):  # torchperf: prevalidated\n    validate_volume(x)\n", ((2, 5),)),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._stack: list[str | None] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        marked = is_prevalidated(self.ctx, node)
        self._stack.append(self.ctx.function_qualname() if marked else None)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._stack.pop()

    @property
    def _function(self) -> str | None:
        return self._stack[-1] if self._stack else None

    def visit_Assert(self, node: cst.Assert) -> None:
        if self._function:
            self.report(node, what="assert", function=self._function)

    def visit_Raise(self, node: cst.Raise) -> None:
        if not self._function or node.exc is None:
            return
        if any(isinstance(a, cst.ExceptHandler) for a in self.ctx.ancestors):
            return
        exc = node.exc.func if isinstance(node.exc, cst.Call) else node.exc
        if isinstance(exc, cst.Name) and exc.value in _VALIDATION_ERRORS:
            self.report(node, what=f"raise {exc.value}", function=self._function)

    def visit_Call(self, node: cst.Call) -> None:
        if not self._function:
            return
        func = node.func
        last = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
        if isinstance(last, str) and _VALIDATOR.match(last):
            self.report(node, what=f"{source_of(func)}()", function=self._function)
