"""What the kernel map tells the engine about one file: the role of each of its functions, and what the
project functions it calls return. Small, frozen and picklable: it travels to worker processes and
into the findings cache key."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

ALL = None  # a scope that covers every parameter, or every property


@dataclass(frozen=True)
class Scope:
    """Which parameters arrive validated: every check of the listed properties (None: all), and the
    exact checks listed as failing conditions in the function's own names (what its callers ran)."""

    params: tuple[str, ...] | None = ALL
    properties: tuple[str, ...] | None = ALL
    conditions: tuple[str, ...] = ()

    def covers(self, names: frozenset[str], properties: frozenset[str], condition: str | None) -> bool:
        """Whether a check reading ``names``, testing ``properties`` and failing on ``condition``
        repeats this validation."""
        read = names if self.params is None else names & frozenset(self.params)
        if not read:
            return False
        if condition is not None and condition in self.conditions:
            return True
        return self.properties is None or bool(properties & frozenset(self.properties))


@dataclass(frozen=True)
class Prevalidation:
    """Why a function's inputs arrive validated, and which of them."""

    reason: str
    scopes: tuple[Scope, ...] = (Scope(),)
    #: Declared (pragma or configuration) rather than inferred.
    explicit: bool = False

    def covers(self, names: frozenset[str], properties: frozenset[str], condition: str | None) -> bool:
        return any(scope.covers(names, properties, condition) for scope in self.scopes)


@dataclass(frozen=True)
class FunctionRole:
    prevalidated: Prevalidation | None = None
    #: Why the function is a primitive (None: it is not one).
    primitive: str | None = None
    #: Declared a primitive (pragma or configuration) rather than inferred.
    declared: bool = False
    #: Why an unguarded heavy call in it is a finding (TPL007): a declaration, or the package's own
    #: convention ("14 of 16 Tensor primitives in `pkg` run under `torch.no_grad()`"). None: no finding.
    grad_guard: str | None = None


@dataclass(frozen=True)
class FileFacts:
    """The kernel map's answers for one file, keyed by qualified function name."""

    roles: dict[str, FunctionRole] = field(default_factory=dict)
    #: What project functions this file calls return: ``tensor``, ``array``, ``grad-flag`` or
    #: ``parameters``.
    returns: dict[str, str] = field(default_factory=dict)
    #: The content hash of the bytes the index parsed without error, so the engine need not check
    #: the syntax of the same bytes again (it is not part of what the facts say).
    parsed_sha256: str | None = field(default=None, compare=False)
    #: Names this file imports that the project defines as another (``pkg.core.Tensor`` is
    #: ``torch.Tensor``; ``pkg.optional.trt`` is the ``torch_tensorrt`` module), so rules match them.
    aliases: dict[str, str] = field(default_factory=dict)
    #: The file imports, at module level, a project module that imports torch (``from .tensors import
    #: LabelTensor``): it works on tensors without naming torch itself.
    reaches_torch: bool = False
    #: Project classes this file defines or imports that are ``torch.autograd.Function`` subclasses
    #: (``QuantizedFunction``, directly or through other project classes), by the dotted name the
    #: file resolves them to: a class deriving from one defines a backward pass too.
    autograd_classes: frozenset[str] = frozenset()

    def role(self, qualname: str) -> FunctionRole | None:
        return self.roles.get(qualname)

    def to_json(self) -> list:
        roles = {
            name: [_prevalidation_row(role.prevalidated), role.primitive, role.declared, role.grad_guard]
            for name, role in sorted(self.roles.items())
        }
        return [roles, self.returns, self.aliases, self.reaches_torch, sorted(self.autograd_classes)]

    @classmethod
    def from_json(cls, row: list) -> FileFacts:
        roles, returns, aliases, reaches_torch, autograd_classes = row
        return cls(
            {
                name: FunctionRole(_prevalidation(p), primitive, declared, grad)
                for name, (p, primitive, declared, grad) in roles.items()
            },
            dict(returns),
            aliases=dict(aliases),
            reaches_torch=bool(reaches_torch),
            autograd_classes=frozenset(autograd_classes),
        )

    def digest(self) -> str:
        """A stable hash of these facts, part of the findings cache key."""
        parts = (sorted(self.roles.items()), sorted(self.returns.items()), sorted(self.aliases.items()))
        text = repr((*parts, self.reaches_torch, sorted(self.autograd_classes)))
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    def __hash__(self) -> int:
        return hash(self.digest())


NO_FACTS = FileFacts()


def _prevalidation_row(found: Prevalidation | None) -> list | None:
    if found is None:
        return None
    return [found.reason, [[s.params, s.properties, s.conditions] for s in found.scopes], found.explicit]


def _prevalidation(row: list | None) -> Prevalidation | None:
    if row is None:
        return None
    reason, scopes, explicit = row
    return Prevalidation(reason, tuple(Scope(_tuple(p), _tuple(q), tuple(c)) for p, q, c in scopes), explicit)


def _tuple(value: list | None) -> tuple[str, ...] | None:
    return tuple(value) if value is not None else None
