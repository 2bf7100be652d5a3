"""The built-in rule pack: every module here defines one rule; this collects them."""

from __future__ import annotations

import importlib
import pkgutil

from torchperf_lint.rule import Rule


def _collect() -> list[type[Rule]]:
    found: list[type[Rule]] = []
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Rule) and value.__module__ == module.__name__:
                found.append(value)
    return sorted(found, key=lambda cls: cls.code)


RULES = _collect()
