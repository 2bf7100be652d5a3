"""Turns ``select``/``ignore`` codes and prefixes into the set of enabled rule codes."""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase
from pathlib import PurePosixPath


class UsageError(Exception):
    """A command-line or selector mistake the user must correct (exit 2)."""


def expand(selectors: Iterable[str], known: Iterable[str], origin: str) -> set[str]:
    codes = set(known)
    chosen: set[str] = set()
    for selector in selectors:
        selector = selector.strip().upper()
        if selector == "ALL":
            chosen |= codes
            continue
        matched = {code for code in codes if code.startswith(selector)}
        if not selector or not matched:
            raise UsageError(f"unknown rule selector `{selector}` in {origin}")
        chosen |= matched
    return chosen


def per_file_ignored(
    relative: str, per_file_ignores: dict[str, tuple[str, ...]], known: Iterable[str], origin: str = ""
) -> set[str]:
    """Codes ignored for the file at ``relative`` (POSIX path relative to the config root);
    ``origin`` (the config file) prefixes the message of a bad selector."""
    ignored: set[str] = set()
    name = PurePosixPath(relative).name
    for glob, codes in per_file_ignores.items():
        if fnmatchcase(relative, glob) or fnmatchcase(name, glob) or _under(relative, glob):
            ignored |= expand(codes, known, f"{origin}per-file-ignores[{glob!r}]")
    return ignored


def _under(relative: str, glob: str) -> bool:
    """``tests/`` or ``tests`` also covers everything below that folder."""
    folder = glob.rstrip("/")
    return relative.startswith(folder + "/") if "*" not in folder else fnmatchcase(relative, folder + "/*")
