"""Build or refresh the project index: every Python file of the project summarised, stored summaries
reused when the file's bytes have not changed.

The project is the folder of the ``pyproject.toml`` that configures a file (files of a nested project
with its own configuration belong to that project). Without any configuration, the scope is the
package around the file (the outermost folder reached through ``__init__.py`` files), or the file
alone: the current directory is no project.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from torchperf_lint.config import Settings, config_in
from torchperf_lint.discovery import discover, module_name
from torchperf_lint.index.store import IndexStore, Stored
from torchperf_lint.index.summarize import failed, summarize
from torchperf_lint.index.summary import ModuleSummary
from torchperf_lint.source import decode

#: ``map``-like: applies a function to every item (in this process, or in a pool).
Mapper = Callable[[Callable, Iterable], Iterator]


@dataclass(frozen=True)
class ParseTask:
    path: Path
    module: str


@dataclass
class ProjectIndex:
    """The summaries of one project's files, by resolved path."""

    root: Path
    entries: dict[Path, Stored] = field(default_factory=dict)
    #: How many files this build parsed (the rest came from the store).
    parsed: int = 0

    def modules(self) -> list[ModuleSummary]:
        return [entry.summary for entry in self.entries.values()]


def scope_root(path: Path, settings: Settings) -> Path | None:
    """The folder whose files form ``path``'s project index, or None for the file alone."""
    if settings.source is not None:
        return settings.root
    folder = path.resolve().parent
    top: Path | None = None
    while (folder / "__init__.py").is_file():
        top = folder
        if folder.parent == folder:
            break
        folder = folder.parent
    return top


def project_files(root: Path, settings: Settings) -> list[Path]:
    """The Python files of the project rooted at ``root``, as ``check root`` would find them, without
    those of nested projects that have a configuration of their own."""
    files, _ = discover([root], lambda _: settings)
    nested = set(_nested_projects(files, root))
    return [f.resolve() for f in files if not any(f.resolve().is_relative_to(n) for n in nested)]


def _nested_projects(files: list[Path], root: Path) -> Iterator[Path]:
    seen: set[Path] = set()
    root = root.resolve()
    for file in files:
        folder = file.resolve().parent
        while folder != root and folder not in seen and folder.is_relative_to(root):
            seen.add(folder)
            if config_in(folder) is not None:
                yield folder
            folder = folder.parent


def build(
    root: Path,
    files: list[Path],
    settings: Settings,
    store: IndexStore | None,
    mapper: Mapper = map,
    previous: ProjectIndex | None = None,
) -> ProjectIndex:
    """The index of ``files`` (resolved paths under ``root``), reusing the summaries of a ``previous``
    index held in memory, else those in ``store``, for files whose bytes have not changed."""
    if previous is not None:
        stored = {_relative(path, root): entry for path, entry in previous.entries.items()}
    else:
        stored = store.load() if store is not None else {}
    index = ProjectIndex(root)
    modules = _ModuleNames(root, settings.namespace_packages)
    stale: list[ParseTask] = []
    for path in files:
        relative = _relative(path, root)
        previous = stored.get(relative)
        module = modules.of(path)
        try:
            stat = path.stat()
        except OSError:
            continue
        if previous is not None and previous.summary.module == module:
            if (previous.size, previous.mtime_ns) == (stat.st_size, stat.st_mtime_ns):
                index.entries[path] = previous
                continue
            data = _read(path)
            if data is not None and hashlib.sha256(data).hexdigest() == previous.sha256:
                index.entries[path] = Stored(stat.st_size, stat.st_mtime_ns, previous.sha256, previous.summary)
                continue
        stale.append(ParseTask(path, module))
    for task, entry in zip(stale, mapper(summarize_file, stale), strict=True):
        if entry is not None:
            index.entries[task.path] = entry
    index.parsed = len(stale)
    if store is not None and (stale or len(stored) != len(index.entries)):
        store.save({_relative(path, root): entry for path, entry in index.entries.items()})
    return index


def summarize_file(task: ParseTask) -> Stored | None:
    """Read, decode and summarise one file (run in a worker process for large projects)."""
    try:
        stat = task.path.stat()
        data = task.path.read_bytes()
    except OSError:
        return None
    summary = summarize_bytes(data, task.module, task.path.name == "__init__.py")
    return Stored(stat.st_size, stat.st_mtime_ns, hashlib.sha256(data).hexdigest(), summary)


def summarize_bytes(data: bytes, module: str, is_package: bool) -> ModuleSummary:
    """The summary of a file's bytes; a file CPython cannot parse gets an empty one."""
    try:
        text = decode(data)
        tree = ast.parse(text)
    except (SyntaxError, UnicodeDecodeError, LookupError) as error:
        line = getattr(error, "lineno", None) or 1
        return failed(module, (line, getattr(error, "offset", None) or 1, str(error)))
    except (RecursionError, MemoryError, ValueError):
        return failed(module, (1, 1, "File is nested too deeply to parse"))
    return summarize_tree(tree, module, is_package, text)


def summarize_tree(tree: ast.Module, module: str, is_package: bool, text: str) -> ModuleSummary:
    """The summary of a file CPython has already parsed."""
    try:
        return summarize(tree, module, is_package, text)
    except RecursionError:
        return failed(module, (1, 1, "File is nested too deeply to summarise"))


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


class _ModuleNames:
    """Module names of many files, asking the file system once per folder."""

    def __init__(self, root: Path, namespace_packages: tuple[str, ...]) -> None:
        self.root, self.namespace_packages = root, namespace_packages
        self.packages: dict[Path, str] = {}

    def of(self, path: Path) -> str:
        folder = path.parent
        package = self.packages.get(folder)
        if package is None:
            package = self.packages[folder] = module_name(
                folder / "__init__.py", self.root, self.namespace_packages
            )
        if path.stem == "__init__":
            return package
        return f"{package}.{path.stem}" if package else path.stem
