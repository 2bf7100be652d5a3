"""``[tool.torchperf-lint]`` in pyproject.toml: find it, check every key, merge CLI overrides.

A file given with ``--config`` may hold that table (a ``pyproject.toml`` or any TOML file with a
``[tool.torchperf-lint]`` table) or the bare keys at its top level, as Ruff reads ``ruff.toml``; a
``--config 'KEY = VALUE'`` snippet overrides one key of whichever file applies, as in Ruff.
Errors name each key as the file spells it: ``tool.torchperf-lint.select`` under the table, ``select``
in a bare file or a snippet. Every rule selector, including those of per-file-ignores whose glob
matches no file, is checked when the file is read.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from torchperf_lint import python_versions
from torchperf_lint.selection import UsageError, expand

DEFAULT_EXCLUDE = (
    ".git",
    ".hg",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    "__pycache__",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".torchperf_lint_cache",
    "build",
    "dist",
    "node_modules",
    "site-packages",
)


#: Benchmarks and their entry points set thread counts on purpose (TPL104); user settings replace this.
_BENCHMARK_IGNORES = {
    pattern: ("TPL104",) for pattern in ("bench*.py", "bench/", "*/bench/*", "benchmarks/", "*/benchmarks/*")
}
#: Tests call ``.backward()`` to prove a result can feed training (TPL001), guard on sizes (TPL006),
#: and need no performance hazards checked (TPL1xx). The contract rules about compilation, devices,
#: autograd branches and primitives still apply: a test of a forbidden route is still that route.
TEST_IGNORES = ("TPL001", "TPL006", "TPL1")
_TEST_PATTERNS = ("tests/", "*/tests/*", "test_*.py", "*_test.py", "conftest.py")
DEFAULT_PER_FILE_IGNORES = {**_BENCHMARK_IGNORES, **{pattern: TEST_IGNORES for pattern in _TEST_PATTERNS}}
#: Larger files are not parsed: LibCST holds about 600 bytes per byte of source, and no kernel module
#: comes near this size (generated tables do). At 512 KiB a file peaks at about 330 MB
#: (``benchmarks/huge_files.py``).
DEFAULT_MAX_FILE_SIZE = 512 * 1024


class ConfigError(Exception):
    """A bad configuration value; the message names the file and the key."""


@dataclass(frozen=True)
class Settings:
    root: Path
    source: Path | None = None
    select: tuple[str, ...] = ("TPL",)
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=lambda: dict(DEFAULT_PER_FILE_IGNORES))
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    prevalidated: tuple[str, ...] = ()
    primitives: tuple[str, ...] = ()
    #: Globs of functions the kernel map must not infer as prevalidated, or as primitives.
    not_prevalidated: tuple[str, ...] = ()
    not_primitives: tuple[str, ...] = ()
    #: Infer the kernel map from docstrings, callers and heavy calls (else only declarations count).
    infer_kernel_map: bool = True
    #: Folders (relative to ``root``) whose subfolders count as packages without ``__init__.py``.
    namespace_packages: tuple[str, ...] = ()
    respect_gitignore: bool = True
    target_version: python_versions.Version = python_versions.DEFAULT
    max_file_size: int = DEFAULT_MAX_FILE_SIZE

    def with_overrides(self, **overrides: object) -> Settings:
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})


_LIST_KEYS = {
    "select": "select",
    "ignore": "ignore",
    "extend-select": "extend_select",
    "exclude": "exclude",
    "extend-exclude": "extend_exclude",
    "prevalidated": "prevalidated",
    "primitives": "primitives",
    "not-prevalidated": "not_prevalidated",
    "not-primitives": "not_primitives",
    "namespace-packages": "namespace_packages",
}

_BOOLEAN_KEYS = {"respect-gitignore": "respect_gitignore", "infer-kernel-map": "infer_kernel_map"}


def config_in(folder: Path) -> Path | None:
    """``folder/pyproject.toml`` if it has a ``[tool.torchperf-lint]`` table."""
    candidate = folder / "pyproject.toml"
    return candidate if candidate.is_file() and _has_table(candidate) else None


def _has_table(path: Path) -> bool:
    try:
        return "torchperf-lint" in _read(path).get("tool", {})
    except ConfigError:
        return True  # report the parse error when it is loaded


def _read(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None


#: Keys that hold one value, not a list or a table (besides the true-or-false ones).
_SCALAR_KEYS = ("target-version", "max-file-size")
#: Keys whose values are rule selectors, checked against the known codes when the file is read.
_SELECTOR_KEYS = ("select", "extend-select", "ignore")
_PER_FILE_KEYS = ("per-file-ignores", "extend-per-file-ignores")


def load(path: Path | None, cwd: Path, known: Iterable[str]) -> Settings:
    """Settings from ``path`` (or defaults rooted at ``cwd`` when there is none); every selector in
    the file must name one of the ``known`` codes or a prefix of them. Without ``target-version``,
    a ``pyproject.toml``'s ``requires-python`` gives it, as in Ruff."""
    if path is None:
        return Settings(root=cwd.resolve())
    document = _read(path)
    tool = document.get("tool")
    nested = path.name == "pyproject.toml" or (isinstance(tool, dict) and "torchperf-lint" in tool)
    table = document.get("tool", {}).get("torchperf-lint", {}) if nested else document
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: `tool.torchperf-lint` must be a table")
    settings = Settings(root=path.parent.resolve(), source=path, target_version=_required_python(document))
    return _applied(settings, table, str(path), "tool.torchperf-lint." if nested else "", known)


def with_snippets(settings: Settings, snippets: Iterable[str], known: Iterable[str]) -> Settings:
    """``settings`` with each ``--config 'KEY = VALUE'`` snippet's keys in place of the file's values
    for them, as in Ruff."""
    for snippet in snippets:
        settings = _applied(settings, parse_snippet(snippet), "--config", "", known)
    return settings


def parse_snippet(text: str) -> dict:
    """A ``--config`` value read as TOML (``select = ["TPL0"]``); ConfigError when it is not."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"--config {text!r} is neither a file nor TOML `KEY = VALUE`: {error}") from None


def _applied(settings: Settings, table: dict, origin: str, prefix: str, known: Iterable[str]) -> Settings:
    """``settings`` with ``table``'s keys, each checked and named ``{origin}: `{prefix}{key}```."""
    values: dict[str, object] = {}
    for key, value in table.items():
        values.update(_parse_key(origin, prefix, key, value))
    _check_selectors(origin, prefix, table, frozenset(known))
    extra = values.pop("extend_per_file_ignores", {})
    ignores = {**values.pop("per_file_ignores", settings.per_file_ignores), **extra}  # type: ignore[dict-item]
    return replace(settings, per_file_ignores=ignores, **values)  # type: ignore[arg-type]


def _required_python(document: dict) -> python_versions.Version:
    project = document.get("project")
    specifier = project.get("requires-python") if isinstance(project, dict) else None
    if not isinstance(specifier, str):
        return python_versions.DEFAULT
    return python_versions.from_requires_python(specifier)


def _check_selectors(origin: str, prefix: str, table: dict, known: frozenset[str]) -> None:
    """Raise for the first selector that names no known code, naming the file and the key."""
    lists = [(key, table[key]) for key in _SELECTOR_KEYS if key in table]
    for key in _PER_FILE_KEYS:
        lists += [(f"{key}.{_toml_key(glob)}", codes) for glob, codes in table.get(key, {}).items()]
    for key, selectors in lists:
        try:
            expand(selectors, known, f"{origin}: `{prefix}{key}`")
        except UsageError as error:
            raise ConfigError(str(error)) from None


def _toml_key(name: str) -> str:
    """``name`` as a key in a TOML dotted key: bare when it can be, else a quoted string."""
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else json.dumps(name, ensure_ascii=False)


def _parse_key(origin: str, prefix: str, key: str, value: object) -> dict[str, object]:
    where = f"{origin}: `{prefix}{key}`"
    if key in _LIST_KEYS:
        if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise ConfigError(f"{where} must be a list of strings")
        return {_LIST_KEYS[key]: tuple(value)}
    if key in _PER_FILE_KEYS:
        if not isinstance(value, dict) or not all(
            isinstance(v, list) and all(isinstance(c, str) for c in v) for v in value.values()
        ):
            raise ConfigError(f"{where} must map globs to lists of codes")
        return {key.replace("-", "_"): {glob: tuple(codes) for glob, codes in value.items()}}
    if key in _BOOLEAN_KEYS:
        if not isinstance(value, bool):
            raise ConfigError(f"{where} must be true or false")
        return {_BOOLEAN_KEYS[key]: value}
    if key == "target-version":
        version = python_versions.parse(value) if isinstance(value, str) else None
        if version is None:
            choices = ", ".join(f'"{python_versions.spelled(v)}"' for v in python_versions.SUPPORTED)
            raise ConfigError(f"{where} must be one of {choices}")
        return {"target_version": version}
    if key == "max-file-size":
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ConfigError(f"{where} must be a whole number of bytes, at least 1")
        return {"max_file_size": value}
    known = ", ".join(sorted([*_LIST_KEYS, *_PER_FILE_KEYS, *_SCALAR_KEYS, *_BOOLEAN_KEYS]))
    raise ConfigError(f"{origin}: unknown key `{prefix}{key}` (known: {known})")
