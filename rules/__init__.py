"""The built-in rule pack: every module here defines one rule.

``CATALOG`` (read from ``catalog.json``) describes every rule without importing any; ``RULES``, the
classes the entry point names, is collected on first access, so listing and selecting rules, or a
run served from the cache, never imports the rule modules or LibCST.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from pathlib import Path

CATALOG: list[dict[str, object]] = json.loads(Path(__file__).with_name("catalog.json").read_text("utf-8"))


def _collect() -> list[type]:
    from torchperf_lint.rule import Rule

    found: list[type[Rule]] = []
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Rule) and value.__module__ == module.__name__:
                found.append(value)
    return sorted(found, key=lambda cls: cls.code)


def __getattr__(name: str) -> object:
    if name == "RULES":
        rules = _collect()
        globals()["RULES"] = rules
        return rules
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
