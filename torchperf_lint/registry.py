"""Finds rules through the ``torchperf_lint.rules`` entry-point group, like any third-party pack."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from importlib.metadata import entry_points

from torchperf_lint.rule import Rule

GROUP = "torchperf_lint.rules"


class RegistryError(Exception):
    """A rule pack is broken: duplicate codes or an entry point that is not a rule."""


@cache
def all_rules() -> dict[str, type[Rule]]:
    """Every registered rule class by code, sorted by code."""
    found: dict[str, type[Rule]] = {}
    for point in entry_points(group=GROUP):
        loaded = point.load()
        classes: Iterable[object] = loaded if isinstance(loaded, list | tuple) else [loaded]
        for cls in classes:
            if not (isinstance(cls, type) and issubclass(cls, Rule)):
                raise RegistryError(f"entry point {point.name!r} gave {cls!r}, not a Rule")
            if cls.code in found and found[cls.code] is not cls:
                raise RegistryError(f"two rules claim {cls.code}")
            found[cls.code] = cls
    return dict(sorted(found.items()))


def known_codes() -> frozenset[str]:
    """Every registered rule code (what selectors are checked against)."""
    return frozenset(all_rules())
