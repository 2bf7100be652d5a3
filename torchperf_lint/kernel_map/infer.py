"""The kernel map: which functions of a project are caller-prevalidated and which are primitives, and
why, inferred from the project index without configuration.

- Prevalidated: declared (``# torchperf: prevalidated``, the ``prevalidated`` setting); claimed by the
  function's own docstring ("Callers validate the input container, layout, dtype ..."); or a private
  module-level function, not itself a validator (``_check_extent``), whose every call in the project
  comes from a prevalidated function or after its caller validated the arguments it passes (followed
  through chains). Only the parameters bound to validated values at every call, and the properties
  validated for them, are covered.
- Primitives: prevalidated functions, functions named by the ``primitives`` setting, and functions that
  take a tensor or an array and return one and reach a heavy torch operation (directly or through
  project calls).
- The grad-guard convention: where most of a package's primitives that make heavy calls run them under
  a grad guard (their own, or every caller's), an unguarded one is a deviation (TPL007). A package that
  never guards has chosen autograd and gets no such finding; declared primitives always do.

Configuration still wins: ``not-prevalidated``/``not-primitives`` remove inferred entries, and
``infer-kernel-map = false`` keeps only the declared ones.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase

from torchperf_lint.index.conditions import renamed
from torchperf_lint.index.summary import Call, Check, FunctionSummary, ModuleSummary
from torchperf_lint.kernel_map.facts import FileFacts, FunctionRole, Prevalidation, Scope
from torchperf_lint.vocabulary import (
    ARRAY_TYPES,
    AUTOGRAD_FUNCTIONS,
    FRAME_TYPES,
    MEASURES,
    TENSOR_TYPES,
    VALIDATOR,
)

_ALIAS_DEPTH = 8
_CHAIN_NAMES_SHOWN = 2


@dataclass(frozen=True)
class MapSettings:
    """The configuration the map reads."""

    prevalidated: tuple[str, ...] = ()
    primitives: tuple[str, ...] = ()
    not_prevalidated: tuple[str, ...] = ()
    not_primitives: tuple[str, ...] = ()
    infer: bool = True


@dataclass(frozen=True)
class Entry:
    """One function of the map, with its module and the reasons for its role."""

    module: str
    function: FunctionSummary
    role: FunctionRole


class KernelMap:
    """Roles for every function of a project, computed once from its module summaries."""

    def __init__(self, modules: Iterable[ModuleSummary], settings: MapSettings = MapSettings()) -> None:
        self.settings = settings
        self.modules = {summary.module: summary for summary in modules}
        self.module_of: dict[str, str] = {}
        self.functions: dict[str, FunctionSummary] = {}
        for summary in self.modules.values():
            for function in summary.functions:
                self.functions.setdefault(function.qualname, function)
                self.module_of.setdefault(function.qualname, summary.module)
        #: The project's top-level packages: a name resolved outside them is another library's.
        self.packages = {module.partition(".")[0] for module in self.modules}
        self._resolved: dict[str, str] = {}
        self._derived: frozenset[str] | None = None
        self.callees = self._callees()
        self.callers = self._callers()
        self.referenced = self._referenced()
        self.followed = self._followed()
        self.prevalidated = self._prevalidated()
        self.primitives = self._primitives()
        self.guarded = self._guarded()
        self.conventions = self._conventions()
        self.roles = self._roles()

    # --- names -----------------------------------------------------------------------------------

    def resolve(self, name: str) -> str:
        """Follow re-exports and aliases (``pkg.warp`` -> ``pkg.affine.warp``, ``pkg.Tensor`` ->
        ``torch.Tensor``) to where the name is defined."""
        found = self._resolved.get(name)
        if found is not None:
            return found
        current = name
        for _ in range(_ALIAS_DEPTH):
            if current in self.functions:
                break
            module, _, attribute = current.rpartition(".")
            target = self.modules[module].exports.get(attribute) if module in self.modules else None
            if target is None or target == current:
                break
            current = target
        self._resolved[name] = current
        return current

    def kind_of_type(self, dotted: str | None) -> str | None:
        if dotted is None:
            return None
        resolved = self.resolve(dotted)
        if resolved in TENSOR_TYPES:
            return "tensor"
        if resolved in ARRAY_TYPES:
            return "array"
        return "frame" if resolved in FRAME_TYPES else None

    def returns(self, qualname: str, seen: frozenset[str] = frozenset()) -> str | None:
        """What a project function returns: ``tensor``, ``array``, ``frame``, a container of them
        (``items:tensor``, ``values:array``, ``tuple:tensor,,array``), ``grad-flag``, a measure of a
        parameter (``size:0``: a size of its first parameter), or None."""
        function = self.functions.get(qualname)
        if function is None or function.returns is None or qualname in seen:
            return None
        declared = function.returns
        if declared.startswith("type:"):
            return self._declared_kind(declared[5:])
        if declared.startswith("="):
            found = self.returns(self.resolve(declared[1:]), seen | {qualname})
            # a measure names the callee's parameter, which need not be this function's
            return None if found is not None and found.partition(":")[0] in MEASURES else found
        return declared

    def _declared_kind(self, declared: str) -> str | None:
        """The kind a declared return type gives: ``tensor`` for ``torch.Tensor``, ``items:tensor`` for
        ``items[torch.Tensor]``, ``items:values:array`` for ``items[values[numpy.ndarray]]``,
        ``tuple:,tensor`` for ``tuple[int,torch.Tensor]``."""
        tag, bracket, rest = declared.partition("[")
        if not bracket:
            return self.kind_of_type(declared)
        inner = rest[:-1]  # the closing bracket of this container
        if tag != "tuple" and "[" in inner:
            nested = self._declared_kind(inner)
            return f"{tag}:{nested}" if nested is not None else None
        parts = [self.kind_of_type(part or None) or "" for part in inner.split(",")]
        if not any(parts):
            return None
        return f"tuple:{','.join(parts)}" if tag == "tuple" else f"{tag}:{parts[0]}"

    # --- who calls whom --------------------------------------------------------------------------

    def _callees(self) -> dict[str, list[tuple[str, Call]]]:
        """Per function, the project functions it calls (resolved once), with the call."""
        callees: dict[str, list[tuple[str, Call]]] = {}
        for qualname, function in self.functions.items():
            found = [(self.resolve(call.callee), call) for call in function.calls]
            callees[qualname] = [
                (target, call) for target, call in found if target in self.functions and target != qualname
            ]
        return callees

    def _callers(self) -> dict[str, list[tuple[str, Call]]]:
        callers: dict[str, list[tuple[str, Call]]] = defaultdict(list)
        for qualname, calls in self.callees.items():
            for target, call in calls:
                callers[target].append((qualname, call))
        return callers

    def _referenced(self) -> set[str]:
        return {self.resolve(name) for summary in self.modules.values() for name in summary.references}

    def _is_module_level(self, qualname: str) -> bool:
        return qualname.rpartition(".")[0] == self.module_of.get(qualname)

    def _followed(self) -> dict[str, list[tuple[str, Call]]]:
        """The functions whose every call the index sees (private, module-level, never used as a
        value, called somewhere), with those calls: only these are known by their callers."""
        return {
            qualname: self.callers[qualname]
            for qualname, function in self.functions.items()
            if function.is_private
            and qualname in self.callers
            and qualname not in self.referenced
            and self._is_module_level(qualname)
        }

    def _visible_callers(self, qualname: str) -> list[tuple[str, Call]] | None:
        """Every call of a function the index follows, or None when some caller may be unseen."""
        return self.followed.get(qualname)

    # --- prevalidated ----------------------------------------------------------------------------

    def _prevalidated(self) -> dict[str, Prevalidation]:
        found: dict[str, Prevalidation] = {}
        settings = self.settings
        for qualname, function in self.functions.items():
            if function.pragma:
                found[qualname] = Prevalidation("`# torchperf: prevalidated` marks it", explicit=True)
            elif _matches(qualname, settings.prevalidated):
                found[qualname] = Prevalidation("the `prevalidated` setting names it", explicit=True)
            elif settings.infer and function.claims and not _matches(qualname, settings.not_prevalidated):
                # The sentence that lists what was validated says the most; else the first.
                claim = next((c for c in function.claims if c.properties), function.claims[0])
                scopes = _claimed_scopes(function)
                quote = claim.text if len(claim.text) <= 70 else claim.text[:67] + "..."
                found[qualname] = Prevalidation(f'its docstring: "{quote}"', scopes)
        if settings.infer:
            self._follow_callers(found)
        return found

    def _follow_callers(self, found: dict[str, Prevalidation]) -> None:
        """Private functions reached only with validated arguments, until nothing changes. A validator
        (``_check_extent``) is not one: its checks are the validation its callers ask for, one after
        another, not a second round inside a routine that trusts them."""
        candidates = [
            q
            for q in self.followed
            if q not in found
            and not _matches(q, self.settings.not_prevalidated)
            and not VALIDATOR.match(q.rpartition(".")[2])
        ]
        changed = True
        while changed:
            changed = False
            for qualname in candidates:
                if qualname in found:
                    continue
                inferred = self._from_callers(qualname, found)
                if inferred is not None:
                    found[qualname] = inferred
                    changed = True

    def _from_callers(self, qualname: str, found: Mapping[str, Prevalidation]) -> Prevalidation | None:
        sites = self._visible_callers(qualname)
        if sites is None:
            return None
        params = [p.name for p in self.functions[qualname].params]
        covered: dict[str, Coverage] | None = None
        for caller, call in sites:
            site = self._validated_at(caller, call, params, found.get(caller))
            covered = site if covered is None else _intersect(covered, site)
            if not covered:
                return None
        assert covered is not None
        scopes = tuple(
            Scope((name,), _sorted(properties), tuple(sorted(conditions)))
            for name, (properties, conditions) in sorted(covered.items())
        )
        return Prevalidation(self._chain_reason(sites, found), scopes)

    def _validated_at(
        self, caller: str, call: Call, params: list[str], caller_role: Prevalidation | None
    ) -> dict[str, Coverage]:
        """The callee's parameters this call binds to validated values, and what was validated."""
        caller_function = self.functions[caller]
        caller_params = {p.name for p in caller_function.params}
        names: dict[str, str] = {}
        for slot, name in call.arguments:
            target = params[slot] if isinstance(slot, int) and slot < len(params) else slot
            if isinstance(target, str) and target in params:
                names[name] = target
        bound: dict[str, Coverage] = {}
        for name, target in names.items():
            coverage = self._coverage(name, names, caller_params, caller_role, caller_function, call)
            if coverage[0] is None or coverage[0] or coverage[1]:
                bound[target] = coverage
        return bound

    def _coverage(
        self,
        name: str,
        names: dict[str, str],
        caller_params: set[str],
        caller_role: Prevalidation | None,
        caller: FunctionSummary,
        call: Call,
    ) -> Coverage:
        """What is known valid about the caller's value ``name`` when ``call`` passes it on: what the
        caller's own prevalidation covers, and the checks it ran on it before the call, in the
        callee's names (a project validator's own checks; any other validator checks everything)."""
        properties: set[str] = set()
        conditions: set[str] = set()
        if caller_role is not None and name in caller_params:
            for scope in caller_role.scopes:
                if scope.params is None or name in scope.params:
                    if scope.properties is None:
                        return None, frozenset()
                    properties |= set(scope.properties)
                    conditions |= _renamed_all(scope.conditions, names)
        if name in call.validated:
            for check in caller.checks:
                if check.order >= call.order or name not in check.names:
                    continue
                if check.condition is not None:
                    conditions |= _renamed_all((check.condition,), names)
                    continue
                inner = self._validator_conditions(caller, check)
                if inner is None:
                    return None, frozenset()
                conditions |= _renamed_all(inner, names)
        return frozenset(properties), frozenset(conditions)

    def _validator_conditions(self, caller: FunctionSummary, check: Check) -> tuple[str, ...] | None:
        """The checks a validator call runs, in the caller's names; None when they cannot all be read
        (a validator outside the project, or one that calls another)."""
        target = self.resolve(check.validator) if check.validator is not None else None
        validator = self.functions.get(target) if target is not None else None
        call = next((c for c in caller.calls if c.order == check.order and c.callee == check.validator), None)
        if validator is None or call is None or any(c.condition is None for c in validator.checks):
            return None
        params = [p.name for p in validator.params]
        to_caller = {
            params[slot] if isinstance(slot, int) else slot: local
            for slot, local in call.arguments
            if not isinstance(slot, int) or slot < len(params)
        }
        return tuple(_renamed_all(tuple(c.condition for c in validator.checks if c.condition), to_caller))

    def _chain_reason(self, sites: list[tuple[str, Call]], found: Mapping[str, Prevalidation]) -> str:
        callers = sorted({caller for caller, _ in sites})
        shown = ", ".join(f"`{name}`" for name in callers[:_CHAIN_NAMES_SHOWN])
        more = f" and {len(callers) - _CHAIN_NAMES_SHOWN} more" if len(callers) > _CHAIN_NAMES_SHOWN else ""
        if all(caller in found for caller in callers):
            return f"only called from prevalidated {shown}{more}"
        if len(callers) == 1:
            return f"only called after {shown} checks what it passes"
        return f"only called after {shown}{more} check what they pass"

    # --- primitives ------------------------------------------------------------------------------

    def _primitives(self) -> dict[str, tuple[str, bool]]:
        """Primitive functions, with the reason and whether they were declared."""
        found: dict[str, tuple[str, bool]] = {}
        reach = self._heavy_reach()
        for qualname, function in self.functions.items():
            prevalidated = self.prevalidated.get(qualname)
            if prevalidated is not None and prevalidated.explicit:
                found[qualname] = ("declared caller-prevalidated", True)
            elif _matches(qualname, self.settings.primitives):
                found[qualname] = ("the `primitives` setting names it", True)
            elif not self.settings.infer or _matches(qualname, self.settings.not_primitives):
                continue
            elif prevalidated is not None:
                found[qualname] = ("caller-prevalidated", False)
            elif qualname in reach and self._takes_and_returns_data(function):
                found[qualname] = (f"takes a tensor, returns data and {reach[qualname]}", False)
        return found

    def _takes_and_returns_data(self, function: FunctionSummary) -> bool:
        return self._takes_tensor(function) and self.returns(function.qualname) in ("tensor", "array")

    def _takes_tensor(self, function: FunctionSummary) -> bool:
        """Whether a parameter is annotated as a tensor: only a tensor input can make a heavy call
        record autograd (a theta built from a NumPy matrix never requires grad)."""
        return any(self.kind_of_type(p.annotation) == "tensor" for p in function.params)

    def _heavy_reach(self) -> dict[str, str]:
        """For each function that reaches a heavy torch call, how (``calls `F.grid_sample```)."""
        reach: dict[str, str] = {}
        for qualname, function in self.functions.items():
            if function.heavy:
                reach[qualname] = f"calls `{function.heavy[0][0]}`"
        frontier = list(reach)
        while frontier:  # up the call graph, breadth first: the reason names the nearest callee
            following = []
            for target in frontier:
                for caller, _ in self.callers.get(target, ()):
                    if caller not in reach:
                        reach[caller] = f"reaches heavy torch calls through `{target}`"
                        following.append(caller)
            frontier = following
        return reach

    # --- the grad-guard convention ---------------------------------------------------------------

    def _guarded(self) -> set[str]:
        """Functions whose heavy calls all run under a grad guard: their own, or every caller's."""
        guarded = {
            q
            for q, f in self.functions.items()
            if f.guard is not None or (f.heavy and all(guard is not None for _, guard in f.heavy))
        }
        changed = True
        while changed:
            changed = False
            for qualname, sites in self.followed.items():
                if qualname not in guarded and all(
                    call.guard is not None or caller in guarded for caller, call in sites
                ):
                    guarded.add(qualname)
                    changed = True
        return guarded

    def _conventions(self) -> dict[str, str]:
        """Per top-level package whose primitives mostly run guarded, the convention in words."""
        counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for qualname in self.primitives:
            function = self.functions[qualname]
            if function.heavy and self._takes_tensor(function):
                tally = counts[qualname.partition(".")[0]]
                tally[0] += qualname in self.guarded
                tally[1] += 1
        return {
            package: f"{guarded} of {total} primitives in `{package}` run their heavy calls under a grad guard"
            for package, (guarded, total) in counts.items()
            if guarded >= 2 and guarded * 2 > total
        }

    # --- per function ----------------------------------------------------------------------------

    def _roles(self) -> dict[str, FunctionRole]:
        roles: dict[str, FunctionRole] = {}
        for qualname in self.functions:
            prevalidated = self.prevalidated.get(qualname)
            primitive = self.primitives.get(qualname)
            if prevalidated is None and primitive is None:
                continue
            grad_guard = None
            if primitive is not None:
                why, declared = primitive
                convention = self.conventions.get(qualname.partition(".")[0])
                if declared:
                    grad_guard = why
                elif convention is not None and qualname not in self.guarded:
                    grad_guard = convention if self._takes_tensor(self.functions[qualname]) else None
            reason, declared = primitive if primitive is not None else (None, False)
            roles[qualname] = FunctionRole(prevalidated, reason, declared, grad_guard)
        return roles

    def entries(self) -> list[Entry]:
        """Every function with a role, in module and line order."""
        found = [Entry(self.module_of[q], self.functions[q], role) for q, role in self.roles.items()]
        return sorted(found, key=lambda e: (e.module, e.function.line))

    def file_facts(self, module: str) -> FileFacts:
        """The roles of the functions ``module`` defines, and what the project functions it calls return."""
        summary = self.modules.get(module)
        if summary is None:
            return FileFacts()
        roles = {f.qualname: self.roles[f.qualname] for f in summary.functions if f.qualname in self.roles}
        returns: dict[str, str] = {}
        for function in summary.functions:
            for call in function.calls:
                kind = self.returns(self.resolve(call.callee))
                if kind is not None:
                    returns[call.callee] = kind
        aliases = {}
        for target in summary.exports.values():
            resolved = self.resolve(target)
            if resolved != target and resolved.partition(".")[0] not in self.packages:
                aliases[target] = resolved
        derived = self._autograd_classes()
        targets = set(summary.exports.values())
        autograd = {name for name in targets if self.resolve(name) in derived}  # imported, also re-exported
        autograd |= {c for c in derived if c in summary.classes or c.rpartition(".")[0] in targets}
        return FileFacts(
            roles,
            returns,
            aliases=aliases,
            reaches_torch=self._reaches_torch(summary),
            autograd_classes=frozenset(autograd),
        )

    def _autograd_classes(self) -> frozenset[str]:
        """Project classes that are ``torch.autograd.Function`` subclasses, directly or through other
        project classes; computed once."""
        if self._derived is None:
            bases = {name: found for summary in self.modules.values() for name, found in summary.classes.items()}

            def derives(name: str, seen: frozenset[str]) -> bool:
                resolved = [self.resolve(base) for base in bases.get(name, ())]
                return any(
                    base in AUTOGRAD_FUNCTIONS
                    or (base in bases and base not in seen and derives(base, seen | {base}))
                    for base in resolved
                )

            self._derived = frozenset(name for name in bases if derives(name, frozenset({name})))
        return self._derived

    def _reaches_torch(self, summary: ModuleSummary) -> bool:
        """Whether a module-level import of ``summary`` comes from a project module that imports
        torch at module level (one step: what that module itself imports), also when the name it
        imports is an alias that module binds to a torch name."""
        for target in summary.exports.values():
            resolved = self.resolve(target)
            owner = self.module_of.get(resolved) or resolved.rpartition(".")[0]
            # an alias a project module binds (``Device = torch.device``) resolves past that module
            for module in (resolved, owner, target.rpartition(".")[0]):
                found = self.modules.get(module)
                if found is not None and module != summary.module and _imports_torch(found):
                    return True
        return False


def _claimed_scopes(function: FunctionSummary) -> tuple[Scope, ...]:
    """The scopes a docstring's claims give. Where one sentence lists the properties callers
    validate, that list also bounds the function-wide ones that list none ("a prevalidated volume"):
    the docstring has said what was validated."""
    listed = {p for c in function.claims if c.params is None and c.properties for p in c.properties}
    bound = tuple(sorted(listed)) if listed else None
    scopes = (
        Scope(c.params, bound if c.params is None and c.properties is None else c.properties)
        for c in function.claims
    )
    return tuple(dict.fromkeys(scopes))


def _matches(qualname: str, globs: tuple[str, ...]) -> bool:
    return any(fnmatchcase(qualname, pattern) for pattern in globs)


#: What is known valid about one parameter: the properties validated (None: all), and the exact
#: checks (failing conditions in the callee's names) its callers ran.
Coverage = tuple[frozenset[str] | None, frozenset[str]]


def _sorted(properties: frozenset[str] | None) -> tuple[str, ...] | None:
    return tuple(sorted(properties)) if properties is not None else None


def _renamed_all(conditions: Iterable[str], names: dict[str, str]) -> set[str]:
    return {found for found in (renamed(c, names) for c in conditions) if found is not None}


def _intersect(left: dict[str, Coverage], right: dict[str, Coverage]) -> dict[str, Coverage]:
    """What every path validated: a parameter validated at both sites, for what both cover."""
    both: dict[str, Coverage] = {}
    for name in left.keys() & right.keys():
        (left_properties, left_conditions), (right_properties, right_conditions) = left[name], right[name]
        if left_properties is None:
            properties, conditions = right_properties, right_conditions | left_conditions
        elif right_properties is None:
            properties, conditions = left_properties, left_conditions | right_conditions
        else:
            properties, conditions = left_properties & right_properties, left_conditions & right_conditions
        if properties is None or properties or conditions:
            both[name] = (properties, conditions)
    return both


def _imports_torch(summary: ModuleSummary) -> bool:
    return any(target == "torch" or target.startswith("torch.") for target in summary.exports.values())
