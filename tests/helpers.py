"""Lint a source string with chosen rules, the way the engine lints a file."""

from torchperf_lint.engine import FileOptions, lint_bytes
from torchperf_lint.registry import all_rules


def lint(source: str, *codes: str, prevalidated: tuple[str, ...] = (), module: str = "m") -> list:
    rules = all_rules()
    chosen = codes or tuple(rules)
    options = FileOptions(
        path="example.py",
        module_name=module,
        rules=tuple(rules[c] for c in chosen),
        enabled=frozenset(chosen) | {"TPL900", "TPL901"},
        prevalidated=prevalidated,
    )
    return lint_bytes(source.encode(), options)


def spots(source: str, *codes: str, **kwargs) -> list[tuple[str, int, int]]:
    return [(d.code, d.row, d.column) for d in lint(source, *codes, **kwargs)]
