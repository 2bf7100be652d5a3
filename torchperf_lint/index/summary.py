"""The project index's records: one summary per file, one per function, as plain JSON-able data.

A summary holds what other files need to know about a function without parsing it again: its
qualified name, the docstring's first line and its validation claims, its parameters and what they
are annotated to hold, what it returns, the project functions it calls (with the grad guard each call
runs under and which arguments were validated before it), its heavy torch calls, and where it
validates. Names are resolved within the file (imports, module aliases, relative imports); the kernel
map follows them across files.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from torchperf_lint.index.claims import Claim

#: Bumped whenever the summaries' shape or meaning changes, so stored ones are rebuilt.
FORMAT = 15


@dataclass(frozen=True)
class Param:
    name: str
    #: The dotted name the annotation resolves to in its file (``torch.Tensor``, ``pkg.types.Volume``,
    #: with ``Optional``/``| None`` removed), or None when unannotated or not a plain type.
    annotation: str | None = None


@dataclass(frozen=True)
class Call:
    """A call whose callee the file resolves to a dotted name (a project function or anything else)."""

    callee: str
    #: The number of the statement it is in, counted in source order through the function: what
    #: ran before it, without line numbers (which move with every edit above).
    order: int
    #: ``no_grad``, ``inference_mode`` or None: the grad guard the call runs under inside its function.
    guard: str | None
    #: Per argument slot (a position, or a keyword), the caller's local name passed there.
    arguments: tuple[tuple[int | str, str], ...] = ()
    #: The caller's names validated by statements that run before this call.
    validated: tuple[str, ...] = ()


@dataclass(frozen=True)
class Check:
    """A validation statement: its place (as ``Call.order``), the names its condition reads, what it
    tests, and the condition under which it fails (None for a validator call, which checks out of
    sight)."""

    order: int
    names: tuple[str, ...]
    properties: tuple[str, ...]
    condition: str | None = None
    #: For a validator call, the dotted name it resolves to (a project validator's own checks say
    #: what it checks).
    validator: str | None = None


@dataclass(frozen=True)
class FunctionSummary:
    qualname: str
    line: int
    summary: str = ""
    claims: tuple[Claim, ...] = ()
    pragma: bool = False
    params: tuple[Param, ...] = ()
    #: ``type:T`` (a declared type: a dotted name, or ``items[T]``, ``values[T]``, ``tuple[T1,T2]``),
    #: ``tensor``, ``array``, ``frame``, ``tuple:tensor,array`` (a returned tuple), ``grad-flag`` (a
    #: ``requires_grad`` or grad-mode read), ``parameters`` (a module's learnable parameters),
    #: ``module:name`` (a module imported by name, as optional-import helpers do), ``device-type``
    #: (``x.device.type``), ``device-name`` (a string naming a non-CPU device, ``f"cuda:{i}"``), ``scalar``
    #: (a Python number read out of a value: ``x.item()``, ``float(t)``),
    #: ``=pkg.mod.f`` (whatever that function returns), a measure of a positional parameter
    #: (``shape:0``, ``size:0``, ``strides:0``, ``stride:0``), or None.
    returns: str | None = None
    #: The grad guard a decorator puts around the whole body.
    guard: str | None = None
    calls: tuple[Call, ...] = ()
    #: Heavy torch calls made directly in this function: (qualified name, guard).
    heavy: tuple[tuple[str, str | None], ...] = ()
    checks: tuple[Check, ...] = ()
    #: Whether a value computed under ``inference_mode`` is returned.
    returns_inference: bool = False

    @property
    def name(self) -> str:
        return self.qualname.rpartition(".")[2]

    @property
    def is_private(self) -> bool:
        return self.name.startswith("_") and not self.name.endswith("__")


@dataclass(frozen=True)
class ModuleSummary:
    module: str
    #: Local name -> dotted target, for module-level imports and aliases (``Tensor = torch.Tensor``).
    exports: dict[str, str] = field(default_factory=dict)
    functions: tuple[FunctionSummary, ...] = ()
    #: Dotted names of project-candidate functions used other than by calling them (a callback, a
    #: dispatch table entry): their callers cannot all be seen.
    references: tuple[str, ...] = ()
    #: (line, column, message) when CPython cannot parse the file.
    syntax_error: tuple[int, int, str] | None = None
    #: Class qualname -> the dotted names of its bases that resolve (``torch.autograd.Function``,
    #: ``pkg.ops.QuantizedFunction``): what a class of another module derives from.
    classes: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def to_json(self) -> list:
        """Compact JSON: positional lists, in field order (an index holds thousands of these)."""
        rows = [_function_row(f) for f in self.functions]
        classes = {name: list(bases) for name, bases in self.classes.items()}
        return [self.module, self.exports, rows, list(self.references), self.syntax_error, classes]

    def shape(self) -> str:
        """A hash of everything but line numbers: an edit that moves code without changing what any
        function calls, checks, claims or returns keeps the shape, and so the kernel map."""
        rows = [_function_row(f, lines=False) for f in self.functions]
        classes = {name: list(bases) for name, bases in self.classes.items()}
        text = json.dumps(
            [self.module, self.exports, rows, list(self.references), self.syntax_error is None, classes]
        )
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    @classmethod
    def from_json(cls, row: list) -> ModuleSummary:
        module, exports, functions, references, error, classes = row
        bases = {name: tuple(found) for name, found in classes.items()}
        return cls(
            module, dict(exports), tuple(map(_function, functions)), tuple(references), _tuple(error), bases
        )  # type: ignore[arg-type]


def _function_row(f: FunctionSummary, *, lines: bool = True) -> list:
    return [
        f.qualname,
        f.line if lines else 0,
        f.summary,
        [[c.line if lines else 0, c.text, c.params, c.properties] for c in f.claims],
        f.pragma,
        [[p.name, p.annotation] for p in f.params],
        f.returns,
        f.guard,
        [[c.callee, c.order, c.guard, c.arguments, c.validated] for c in f.calls],
        f.heavy,
        [[c.order, c.names, c.properties, c.condition, c.validator] for c in f.checks],
        f.returns_inference,
    ]


def _function(row: list) -> FunctionSummary:
    qualname, line, summary, claims, pragma, params, returns, guard, calls, heavy, checks, inference = row
    return FunctionSummary(
        qualname,
        line,
        summary,
        tuple(Claim(c[0], c[1], _tuple(c[2]), _tuple(c[3])) for c in claims),
        pragma,
        tuple(Param(name, annotation) for name, annotation in params),
        returns,
        guard,
        tuple(Call(c[0], c[1], c[2], tuple(map(tuple, c[3])), tuple(c[4])) for c in calls),  # type: ignore[arg-type]
        tuple(map(tuple, heavy)),  # type: ignore[arg-type]
        tuple(Check(c[0], tuple(c[1]), tuple(c[2]), c[3], c[4]) for c in checks),
        inference,
    )


def _tuple(value: list | None) -> tuple | None:
    return tuple(value) if value is not None else None
