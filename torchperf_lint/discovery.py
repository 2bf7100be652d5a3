"""Turns the paths a user gives into the Python files to lint, honouring excludes and .gitignore."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fnmatch import translate
from functools import lru_cache
from pathlib import Path

from torchperf_lint.config import Settings

_PYTHON_SUFFIXES = (".py", ".pyi")


@dataclass(frozen=True)
class Skipped:
    """A path that was not linted, and why (shown as a warning)."""

    path: Path
    reason: str

    @property
    def missing(self) -> bool:
        """A path the user gave that does not exist: an error, not a warning."""
        return self.reason == MISSING


MISSING = "no such file or directory"


class _GitIgnore:
    """One ignore file (a ``.gitignore`` or ``.git/info/exclude``), read by pathspec as git reads it:
    its patterns apply to paths below the folder it belongs to."""

    def __init__(self, base: Path, lines: list[str]) -> None:
        from pathspec import GitIgnoreSpec  # only where a project has an ignore file

        self.base = base.absolute()
        self.spec = GitIgnoreSpec.from_lines(lines)

    def ignores(self, path: Path, is_dir: bool) -> bool | None:
        """True if ignored, False if re-included by a ``!`` pattern, None if no pattern matches."""
        try:
            relative = path.absolute().relative_to(self.base).as_posix()
        except ValueError:
            return None
        return self.spec.check_file(relative + "/" if is_dir else relative).include


def _excluded(path: Path, root: Path, patterns: tuple[str, ...], relative: str | None = None) -> bool:
    """Whether an exclude pattern matches ``path`` (its name, or its path relative to ``root``, which
    a walk that already knows it passes as ``relative``)."""
    if not patterns:
        return False
    if relative is None:
        relative = _relative_to(path, root)
    either, below = _exclude_matchers(patterns)
    return bool(either.match(path.name) or either.match(relative) or below.match(relative))


@lru_cache(maxsize=64)
def _exclude_matchers(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The patterns as two expressions, compiled once: one a name or a relative path matches, one a
    path below a matching folder matches (``build`` also excludes ``build/x.py``)."""
    either = "|".join(translate(p) for p in patterns)
    below = "|".join(translate(p.rstrip("/") + "/*") for p in patterns)
    return re.compile(either), re.compile(below)


def _relative_to(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def force_excluded(path: Path, settings: Settings) -> bool:
    """Whether ``--force-exclude`` drops ``path``, a file or folder named explicitly (the pre-commit
    hook passes it, and an editor server asks the same of each open document)."""
    return _excluded(path, settings.root, settings.exclude + settings.extend_exclude)


def discover(
    paths: list[Path], settings_of: Callable[[Path], Settings], force_exclude: bool = False
) -> tuple[list[Path], list[Skipped]]:
    """Python files under ``paths`` (sorted, unique) and the paths that were skipped.

    ``settings_of`` gives the settings that govern a file or folder, so each project in a monorepo
    applies its own excludes and ``respect-gitignore`` to its own folders.
    """
    files: dict[Path, None] = {}
    skipped: list[Skipped] = []
    for given in paths:
        if not given.exists():
            skipped.append(Skipped(given, MISSING))
            continue
        settings = settings_of(given)
        if not (given.is_file() or given.is_dir()):
            skipped.append(Skipped(given, "not a regular file or directory"))
        elif force_exclude and force_excluded(given, settings):
            continue
        elif given.is_file():
            files[given] = None
        else:
            for found in _walk(given, settings_of, skipped):
                files[found] = None
    return sorted(files), skipped


def _walk(top: Path, settings_of: Callable[[Path], Settings], skipped: list[Skipped]) -> Iterator[Path]:
    """Python files below ``top``. As in Ruff, a symbolic link to a folder found on the way is not
    followed (it may lead out of the project, or around in a loop); one to a file is linted, and a
    linked folder given on the command line is walked."""
    top_settings = settings_of(top)
    # A folder given explicitly is linted even if a pattern excludes it (unless --force-exclude).
    exempt = {
        p for p in top_settings.exclude + top_settings.extend_exclude if _excluded(top, top_settings.root, (p,))
    }
    ignores: list[_GitIgnore] = _parent_gitignores(top) if top_settings.respect_gitignore else []
    if _git_ignored(top, True, ignores):
        # A folder the user names is linted even where git ignores it, as Ruff does; only the
        # .gitignore files inside it apply below it.
        ignores = []

    def visit(folder: Path, ignores: list[_GitIgnore]) -> Iterator[Path]:
        settings = settings_of(folder)
        patterns = tuple(p for p in settings.exclude + settings.extend_exclude if p not in exempt)
        # Resolved once per folder, not per entry: resolving a path costs a system call per component.
        folder_relative = _relative_to(folder, settings.root)
        prefix = "" if folder_relative == "." else f"{folder_relative}/"
        if settings.respect_gitignore:
            ignores = [*ignores, *_gitignore_in(folder)]
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as error:
            skipped.append(Skipped(folder, f"cannot read: {error.strerror}"))
            return
        for entry in entries:
            path = Path(entry.path)
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if _excluded(path, settings.root, patterns, prefix + entry.name):
                continue
            if settings.respect_gitignore and _git_ignored(path, is_dir, ignores):
                continue
            if is_dir:
                yield from visit(path, ignores)
            elif path.suffix in _PYTHON_SUFFIXES and entry.is_file():
                yield path

    yield from visit(top, ignores)


def _gitignore_in(folder: Path) -> list[_GitIgnore]:
    return _ignore_file(folder / ".gitignore", folder)


def _ignore_file(path: Path, base: Path) -> list[_GitIgnore]:
    try:
        return [_GitIgnore(base, path.read_text(encoding="utf-8", errors="replace").splitlines())]
    except OSError:
        return []


def _parent_gitignores(top: Path) -> list[_GitIgnore]:
    """What applies to ``top`` from outside it, lowest precedence first: the repository's
    ``.git/info/exclude``, then the ``.gitignore`` files from the repository root down to ``top``'s
    parent. Outside a repository, nothing."""
    top = top.absolute()
    chain = [top, *top.parents]
    for depth, folder in enumerate(chain):
        if (folder / ".git").exists():
            found = _ignore_file(folder / ".git" / "info" / "exclude", folder)
            for above in reversed(chain[1 : depth + 1]):
                found += _gitignore_in(above)
            return found
    return []


def _git_ignored(path: Path, is_dir: bool, ignores: list[_GitIgnore]) -> bool:
    verdict = False
    for ignore in ignores:
        result = ignore.ignores(path, is_dir)
        if result is not None:
            verdict = result
    return verdict


def module_name(path: Path, root: Path, namespace_packages: tuple[str, ...] = ()) -> str:
    """Dotted module name from the package folders around ``path``: those with ``__init__.py``, a
    folder without one inside such a package (Python imports ``pkg/cli/train.py`` as
    ``pkg.cli.train`` when only ``pkg`` has an ``__init__.py``), and (as Ruff's
    ``namespace-packages``) the listed folders under ``root`` and everything below them."""
    namespaces = [(root / folder).resolve() for folder in namespace_packages]
    parts = [] if path.stem == "__init__" else [path.stem]
    folder = path.resolve().parent
    while (
        (folder / "__init__.py").exists()
        or (folder.parent / "__init__.py").exists()
        or any(folder.is_relative_to(n) for n in namespaces)
    ):
        parts.insert(0, folder.name)
        if folder.parent == folder:
            break
        folder = folder.parent
    return ".".join(parts)
