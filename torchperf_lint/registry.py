"""Finds rules through the ``torchperf_lint.rules`` entry-point group, like any third-party pack.

A pack's entry point names a list of rule classes. Importing those classes imports LibCST and every
rule module, which costs more than a fully cached run does in all, so a pack may also publish a
catalog: a ``CATALOG`` list in the entry point's module holding each rule's metadata (code, name,
summary, fix, and the module and class that implement it), with the classes themselves resolved
lazily. The registry reads the catalog for everything that does not lint (selection, the cache key,
summaries) and imports a rule class only when a file must actually be linted. A pack without a
catalog is imported at once and works the same, only slower to start. The built-in pack publishes
one (``rules/catalog.json``, written by ``python -m torchperf_lint.catalog``).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from torchperf_lint.entry_points import EntryPoint, entry_points

if TYPE_CHECKING:
    from torchperf_lint.rule import Rule

GROUP = "torchperf_lint.rules"


class RegistryError(Exception):
    """A rule pack is broken: duplicate codes, a bad catalog, or an entry point that is not a rule."""


@dataclass(frozen=True)
class RuleInfo:
    """What is known of a rule without importing its code."""

    code: str
    name: str
    summary: str
    fix: str | None  # "safe", "unsafe", or None when no finding carries a fix
    module: str
    qualname: str

    def load(self) -> type[Rule]:
        """The rule class (this imports its module, and LibCST)."""
        from torchperf_lint.rule import Rule

        value: object = importlib.import_module(self.module)
        for part in self.qualname.split("."):
            value = getattr(value, part, None)
        if not (isinstance(value, type) and issubclass(value, Rule) and value.code == self.code):
            raise RegistryError(
                f"the catalog lists {self.code} as {self.module}.{self.qualname}, not a rule class"
            )
        return value

    @classmethod
    def of(cls, rule: type[Rule]) -> RuleInfo:
        return cls(rule.code, rule.name, rule.summary, rule.fix, rule.__module__, rule.__qualname__)

    @classmethod
    def from_entry(cls, entry: Mapping[str, object], origin: str) -> RuleInfo:
        try:
            info = cls(**{key: entry[key] for key in CATALOG_FIELDS})  # type: ignore[arg-type]
        except (KeyError, TypeError) as error:
            raise RegistryError(f"{origin}: malformed catalog entry {entry!r}") from error
        return info


#: The keys of one catalog entry, in the order they are written.
CATALOG_FIELDS = ("code", "name", "summary", "fix", "module", "qualname")


@cache
def catalog() -> dict[str, RuleInfo]:
    """Every registered rule's metadata by code, sorted by code."""
    found: dict[str, RuleInfo] = {}
    for point in entry_points(group=GROUP):
        for info in _pack(point):
            if info.code in found and found[info.code] != info:
                raise RegistryError(f"two rules claim {info.code}")
            found[info.code] = info
    return dict(sorted(found.items()))


@cache
def all_rules() -> dict[str, type[Rule]]:
    """Every registered rule class by code, sorted by code (imports the rule modules)."""
    return {code: _loaded(info) for code, info in catalog().items()}


def known_codes() -> frozenset[str]:
    """Every registered rule code (what selectors are checked against)."""
    return frozenset(catalog())


#: Classes of packs that publish no catalog, imported when the catalog was built.
_imported: dict[RuleInfo, type[Rule]] = {}


def _loaded(info: RuleInfo) -> type[Rule]:
    return _imported[info] if info in _imported else info.load()


def _pack(point: EntryPoint) -> list[RuleInfo]:
    """One entry point's rules: from its module's ``CATALOG`` when it has one, else from its classes."""
    module = importlib.import_module(point.module)
    listed = getattr(module, "CATALOG", None)
    if listed is not None:
        return [RuleInfo.from_entry(entry, point.module) for entry in listed]
    from torchperf_lint.rule import Rule

    loaded = point.load()
    classes: Iterable[object] = loaded if isinstance(loaded, list | tuple) else [loaded]
    infos = []
    for cls in classes:
        if not (isinstance(cls, type) and issubclass(cls, Rule)):
            raise RegistryError(f"entry point {point.name!r} gave {cls!r}, not a Rule")
        info = RuleInfo.of(cls)
        _imported[info] = cls
        infos.append(info)
    return infos
