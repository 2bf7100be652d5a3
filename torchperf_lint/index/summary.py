"""The project index's records: one summary per file, one per function, as plain JSON-able data.

A summary holds what other files need to know about a function without parsing it again: its
qualified name, the docstring's first line and its validation claims, its parameters and what they
are annotated to hold, what it returns, the project functions it calls (with the grad guard each call
runs under and which arguments were validated before it), its heavy torch calls, and where it
validates. Names are resolved within the file (imports, module aliases, relative imports); the kernel
map follows them across files.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from torchperf_lint.index.claims import Claim

#: Bumped whenever the summaries' shape or meaning changes, so stored ones are rebuilt.
FORMAT = 3


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
    line: int
    #: ``no_grad``, ``inference_mode`` or None: the grad guard the call runs under inside its function.
    guard: str | None
    #: Per argument slot (a position, or a keyword), the caller's local name passed there.
    arguments: tuple[tuple[int | str, str], ...] = ()
    #: The caller's names validated by statements that run before this call.
    validated: tuple[str, ...] = ()


@dataclass(frozen=True)
class Check:
    """A validation statement: its line, the names its condition reads, what it tests, and the
    condition under which it fails (None for a validator call, which checks out of sight)."""

    line: int
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
    #: ``tensor``, ``array``, ``grad-flag``, ``=pkg.mod.f`` (whatever that function returns), or None.
    returns: str | None = None
    #: The grad guard a decorator puts around the whole body.
    guard: str | None = None
    calls: tuple[Call, ...] = ()
    #: Heavy torch calls made directly in this function: (qualified name, line, guard).
    heavy: tuple[tuple[str, int, str | None], ...] = ()
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

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> ModuleSummary:
        functions = tuple(_function(item) for item in data["functions"])
        error = data.get("syntax_error")
        return cls(
            module=data["module"],
            exports=dict(data["exports"]),
            functions=functions,
            references=tuple(data["references"]),
            syntax_error=tuple(error) if error else None,  # type: ignore[arg-type]
        )


def _function(item: dict) -> FunctionSummary:
    return FunctionSummary(
        qualname=item["qualname"],
        line=item["line"],
        summary=item["summary"],
        claims=tuple(
            Claim(c["line"], c["text"], _tuple(c["params"]), _tuple(c["properties"])) for c in item["claims"]
        ),
        pragma=item["pragma"],
        params=tuple(Param(p["name"], p["annotation"]) for p in item["params"]),
        returns=item["returns"],
        guard=item["guard"],
        calls=tuple(
            Call(c["callee"], c["line"], c["guard"], tuple(map(tuple, c["arguments"])), tuple(c["validated"]))  # type: ignore[arg-type]
            for c in item["calls"]
        ),
        heavy=tuple(tuple(h) for h in item["heavy"]),  # type: ignore[misc]
        checks=tuple(
            Check(c["line"], tuple(c["names"]), tuple(c["properties"]), c["condition"], c["validator"])
            for c in item["checks"]
        ),
        returns_inference=item["returns_inference"],
    )


def _tuple(value: list | None) -> tuple | None:
    return tuple(value) if value is not None else None
