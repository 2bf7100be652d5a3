"""Writes the built-in pack's catalog, ``rules/catalog.json``: ``python -m torchperf_lint.catalog``.

The catalog restates each rule class's metadata so that runs which lint nothing (``--version``, a
run whose every file is a cache hit) need not import LibCST or the rules; a test fails when the
committed file drifts from the classes.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from torchperf_lint.registry import CATALOG_FIELDS, RuleInfo
from torchperf_lint.rule import Rule

PACK = "torchperf_lint.rules"
FILE_NAME = "catalog.json"


def render(rules: list[type[Rule]]) -> str:
    """The catalog text for ``rules``, sorted by code."""
    infos = sorted((RuleInfo.of(rule) for rule in rules), key=lambda info: info.code)
    entries = [{key: getattr(info, key) for key in CATALOG_FIELDS} for info in infos]
    return json.dumps(entries, indent=2, ensure_ascii=False) + "\n"


def path() -> Path:
    """Where the built-in pack keeps its catalog (found without importing the rules)."""
    spec = importlib.util.find_spec(PACK)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"{PACK} is not installed")
    return Path(list(spec.submodule_search_locations)[0]) / FILE_NAME


def main() -> int:
    from torchperf_lint.rules import RULES

    target = path()
    target.write_text(render(RULES), encoding="utf-8")
    print(f"Wrote {target}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
