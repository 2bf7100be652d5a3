"""TPL005: validation re-added inside a caller-prevalidated router."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from torchperf_lint.index.conditions import failing_condition_of
from torchperf_lint.kernel_map.facts import Prevalidation
from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit.exemptions import tests_apply
from torchperf_lint.toolkit.flow import ends_with
from torchperf_lint.toolkit.functions import parameters, prevalidation
from torchperf_lint.toolkit.kernel_map_wording import OPTIONS, PREVALIDATED
from torchperf_lint.toolkit.matching import source_of, walk
from torchperf_lint.vocabulary import VALIDATION_ERRORS, VALIDATOR, check_properties, validator_properties


@dataclass(frozen=True)
class _Router:
    """A caller-prevalidated function being visited: its name, why, and its parameters."""

    qualname: str
    why: Prevalidation
    #: Each parameter, and each local name bound to a part of one (``volume = request.volume``,
    #: ``first = batch[0]``), with the parameter it reads.
    inputs: dict[str, str]


class Revalidation(Rule):
    code = "TPL005"
    options = OPTIONS
    fix_safety = (
        "No fix: deleting a check is only right once the public entry is known to perform the same "
        "check, which the linter cannot see across modules."
    )
    name = "revalidation"
    hint = "Move the check to the public function and delete it here."
    summary = "Validation inside a caller-prevalidated function"
    message = (
        "`{what}` re-validates inside caller-prevalidated `{function}` ({reason}); "
        "validate once at the public entry"
    )
    why = (
        "Public functions validate their arguments once. Routers behind them are documented as "
        "caller-prevalidated so the hot path does dispatch and kernel work only; checks added "
        "back there run on every call of every route and drift from the public ones."
    )
    example = "def _route(volume):  # torchperf: prevalidated\n    assert volume.ndim == 5"
    use_instead = "def _route(volume):  # torchperf: prevalidated\n    return _sample(volume)"
    notes = (
        PREVALIDATED + " Flagged, when it reads an input that arrives validated (a parameter, or a local bound to "
        "a part of one: `volume = request.volume`): a check of a property the docstring lists (any "
        "property, when it lists none, and for declared functions), and a check its caller already ran "
        "on what it passed, compared as code. A check of anything else (a value the function computed, "
        "a property nobody validated) is the function's own business. Checks are `assert`, raising "
        "ValueError/TypeError/IndexError/KeyError/LookupError/"
        "AssertionError outside an `except` block, and calls to `validate_*`, `check_*`, "
        "`ensure_*`, `assert_*` (leading underscores allowed, so `torch._check` too). "
        "Exempt, because they are dispatch, not validation: an empty-batch fast path "
        "(`if x.shape[0] == 0: return x`) and an identity fast path (`if matrix is None: return "
        "volume`), which return a valid result for a valid input instead of rejecting one; a "
        "`try`/`except` that falls back to another route, including a check inside its `try` body whose "
        "failure a handler catches and turns into another result (`except ValueError: return False`) "
        "rather than raising again; and any `raise` inside an `except` block, "
        "which reports or translates a failure of the work that just ran rather than checking the "
        "arguments before it."
    ) + tests_apply(
        "a test helper documented or marked as caller-prevalidated promises, like any router, that "
        "its caller has validated"
    )
    valid = (
        "def public(x):\n    if x.ndim != 5:\n        raise ValueError('x')\n    return _r(x)\n",
        'def route(volume, other):\n    """Callers validate the layout and dtype."""\n'
        "    if type(volume) is not type(other):\n        raise TypeError('same container')\n",
        'def route(volume, size):\n    """Warp one prevalidated CDHW volume."""\n    grid = build(size)\n'
        "    if grid.shape[-1] != 3:\n        raise ValueError('grid')\n",
        "def warp(volume):\n    if volume.ndim != 4:\n        raise ValueError('rank')\n"
        "    return _route(volume)\n\n"
        "def _route(work):\n    if work.dtype != torch.uint8:\n        raise TypeError('uint8')\n"
        "    return work\n",
        "def _r(x):  # torchperf: prevalidated\n    try:\n        return fast(x)\n"
        "    except RuntimeError:\n        return slow(x)\n",
        "def _r(x):  # torchperf: prevalidated\n    if x.shape[0] == 0:\n        return x\n    return fast(x)\n",
        "def _r(x, matrix):  # torchperf: prevalidated\n    if matrix is None:\n        return x\n"
        "    return warp(x, matrix)\n",
        "def _r(x):  # torchperf: prevalidated\n    try:\n        return fast(x)\n    except KeyError as error:\n"
        "        raise ValueError(f'no route for {x.dtype}') from error\n",
        "def _matches(x, schema):  # torchperf: prevalidated\n    try:\n        validate_fields(x, schema)\n"
        "    except ValueError:\n        return False\n    return True\n",
        "def _copy(model):  # torchperf: prevalidated\n    try:\n        copied = clone(model)\n"
        "        assert copied.ndim == model.ndim\n        return copied\n    except Exception:\n"
        "        return model\n",
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
        Invalid(  # a handler that raises again, or catches another error, still lets the rejection out
            "def _r(x):  # torchperf: prevalidated\n    try:\n        validate_volume(x)\n"
            "    except ValueError as error:\n        raise TypeError('bad volume') from error\n"
            "    try:\n        if x.ndim != 5:\n            raise ValueError('rank')\n"
            "        return table[x.dtype]\n    except KeyError:\n        return None\n",
            ((3, 9), (8, 13)),
        ),
        Invalid(
            'def route(volume, matrix):\n    """Warp one prevalidated CDHW volume."""\n'
            "    if volume.ndim != 4:\n        raise ValueError('rank')\n",
            ((4, 9),),
        ),
        Invalid(
            'def route(volume):\n    """Callers validate the layout and dtype."""\n'
            "    assert volume.dtype in (torch.uint8, torch.float32)\n",
            ((3, 5),),
        ),
        Invalid(
            "def warp(volume):\n    if not isinstance(volume, torch.Tensor):\n        raise TypeError('tensor')\n"
            "    return _route(volume)\n\n"
            "def _route(work):\n    if not isinstance(work, torch.Tensor):\n        raise TypeError('tensor')\n"
            "    return work\n",
            ((8, 9),),
        ),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._stack: list[_Router | None] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        why = prevalidation(self.ctx)
        router = _Router(self.ctx.function_qualname(), why, _inputs(node)) if why is not None else None
        self._stack.append(router)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._stack.pop()

    @property
    def _router(self) -> _Router | None:
        return self._stack[-1] if self._stack else None

    def visit_Assert(self, node: cst.Assert) -> None:
        self._check(node, "assert", node.test, None, asserted=True)

    def visit_Raise(self, node: cst.Raise) -> None:
        if self._router is None or node.exc is None:
            return
        if any(isinstance(a, cst.ExceptHandler) for a in self.ctx.ancestors):
            return
        exc = node.exc.func if isinstance(node.exc, cst.Call) else node.exc
        if isinstance(exc, cst.Name) and exc.value in VALIDATION_ERRORS:
            test = next((a.test for a in reversed(self.ctx.ancestors) if isinstance(a, cst.If)), None)
            self._check(node, f"raise {exc.value}", test, None, asserted=False)

    def visit_Call(self, node: cst.Call) -> None:
        if self._router is None:
            return
        func = node.func
        last = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
        if isinstance(last, str) and VALIDATOR.match(last):
            self._check(node, f"{source_of(func)}()", node, validator_properties(last), asserted=None)

    def _check(
        self,
        node: cst.CSTNode,
        what: str,
        condition: cst.CSTNode | None,
        properties: frozenset[str] | None,
        asserted: bool | None,
    ) -> None:
        """Report ``node`` when its condition reads an input the router's callers validated, for a
        property they validated or with a check they already ran (anything else is the router's own
        business). ``asserted`` says how the check fails: when its condition is false (``assert``),
        true (``if ...: raise``), or out of sight (None: a validator call)."""
        router = self._router
        if router is None or condition is None or _falls_back_when_failing(self.ctx.ancestors, _error_of(what)):
            return
        names = (n.value for n in walk(condition) if isinstance(n, cst.Name))
        read = frozenset(router.inputs[name] for name in names if name in router.inputs)
        source = source_of(condition)
        tested = properties if properties is not None else check_properties(source)
        failing = failing_condition_of(source, asserted=asserted) if asserted is not None else None
        if router.why.covers(read, tested, failing):
            self.report(node, what=what, function=router.qualname, reason=router.why.reason)


def _error_of(what: str) -> str | None:
    """The exception a check raises when it fails (None for a validator, which may raise anything)."""
    if what == "assert":
        return "AssertionError"
    return what.removeprefix("raise ") if what.startswith("raise ") else None


#: What an ``except`` clause naming it catches beyond the class itself.
_BROADER = {"IndexError": "LookupError", "KeyError": "LookupError"}


def _falls_back_when_failing(ancestors: list[cst.CSTNode], error: str | None) -> bool:
    """The check sits in a ``try`` body with a handler that catches its failure (``error``, or
    anything for a validator) and does not raise again (``except ValueError: return False``): the
    failure picks another result instead of rejecting the input."""
    return any(
        isinstance(node, cst.Try)
        and ancestors[index + 1] is node.body
        and any(
            _catches(handler, error) and not ends_with(handler.body, (cst.Raise,)) for handler in node.handlers
        )
        for index, node in enumerate(ancestors[:-1])
    )


def _catches(handler: cst.ExceptHandler, error: str | None) -> bool:
    if handler.type is None or error is None:
        return True
    caught = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
    names = {source_of(t.value if isinstance(t, cst.Element) else t).rpartition(".")[2] for t in caught}
    return bool(names & {error, _BROADER.get(error, error), "Exception", "BaseException"})


def _inputs(function: cst.FunctionDef) -> dict[str, str]:
    """The parameters, and the local names bound to an attribute, an item or a slice of one (in
    any order of the body: a check before the binding is rare, and reads the same input)."""
    inputs = {p.name.value: p.name.value for p in parameters(function)}
    for statement in walk(function.body, into_functions=False):
        if not isinstance(statement, cst.Assign) or len(statement.targets) != 1:
            continue
        target, value = statement.targets[0].target, statement.value
        pairs = [(target, value)]
        if (
            isinstance(target, cst.Tuple)
            and isinstance(value, cst.Tuple)
            and len(target.elements) == len(value.elements)
        ):
            pairs = [(t.value, v.value) for t, v in zip(target.elements, value.elements, strict=True)]
        for name, part in pairs:
            source = _part_of(part)
            if isinstance(name, cst.Name) and source in inputs and name.value not in inputs:
                inputs[name.value] = inputs[source]
    return inputs


def _part_of(value: cst.BaseExpression) -> str | None:
    """``request`` for ``request.volume``, ``batch[0]`` or ``request.volume[:, 0]``."""
    while isinstance(value, cst.Attribute | cst.Subscript):
        value = value.value
    return value.value if isinstance(value, cst.Name) else None
