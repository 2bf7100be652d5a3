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
from dataclasses import dataclass, field, replace
from pathlib import Path

from torchperf_lint.config import Settings, config_in
from torchperf_lint.discovery import discover, module_name
from torchperf_lint.index.store import Entry, IndexStore
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
    """One project's files, each with its manifest entry; summaries are loaded only when asked for
    (the kernel map's stored facts often make them unnecessary)."""

    root: Path
    store: IndexStore | None
    entries: dict[Path, Entry] = field(default_factory=dict)
    summaries: dict[Path, ModuleSummary] = field(default_factory=dict)
    #: How many files this build parsed (the rest came from the store or from memory).
    parsed: int = 0

    def modules(self) -> list[ModuleSummary]:
        """Every file's summary: from memory, else the store, else parsed again."""
        for path, entry in self.entries.items():
            if path not in self.summaries:
                stored = self.store.load_summary(entry) if self.store is not None else None
                self.summaries[path] = stored or _summarize(path, entry.module)
        return [self.summaries[path] for path in self.entries]

    def shapes_key(self, extra: str) -> str:
        """A hash of every file's module and shape, and ``extra`` (the tool and the map's settings)."""
        shapes = sorted((entry.module, entry.shape) for entry in self.entries.values())
        return hashlib.sha256(repr((extra, shapes)).encode()).hexdigest()


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
    root = root.resolve()
    files, _ = discover([root], lambda _: settings)
    nested = set(_nested_projects(files, root))
    if not nested:
        return files
    return [f for f in files if not any(f.is_relative_to(n) for n in nested)]


def _nested_projects(files: list[Path], root: Path) -> Iterator[Path]:
    seen: set[Path] = set()
    for file in files:
        folder = file.parent
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
    """The index of ``files`` (under ``root``): entries whose file is unchanged come from a ``previous``
    index held in memory, else from the store's manifest; the rest are parsed (through ``mapper``)."""
    if previous is not None:
        known = {_relative(path, root): entry for path, entry in previous.entries.items()}
        loaded = {_relative(path, root): summary for path, summary in previous.summaries.items()}
    else:
        known, loaded = (store.load_manifest() if store is not None else {}), {}
    index = ProjectIndex(root, store)
    modules = _ModuleNames(root, settings.namespace_packages)
    stale: list[ParseTask] = []
    sizes: dict[Path, int] = {}
    touched = False  # whether the manifest needs writing again
    for path in files:
        relative, module = _relative(path, root), modules.of(path)
        entry = known.get(relative)
        try:
            stat = path.stat()
        except OSError:
            continue
        sizes[path] = stat.st_size
        if entry is not None and entry.module == module:
            if (entry.size, entry.mtime_ns) != (stat.st_size, stat.st_mtime_ns):
                data = _read(path)
                if data is None or hashlib.sha256(data).hexdigest() != entry.sha256:
                    stale.append(ParseTask(path, module))
                    continue
                entry = replace(entry, size=stat.st_size, mtime_ns=stat.st_mtime_ns)
                touched = True
            index.entries[path] = entry
            if relative in loaded:
                index.summaries[path] = loaded[relative]
            continue
        stale.append(ParseTask(path, module))
    parsed: dict[str, ModuleSummary] = {}
    # Parsed largest first, so the last task to finish is a small one (as the lint schedules them);
    # entered in file order, so the map reads the same index whatever the order of the work.
    largest_first = sorted(stale, key=lambda task: sizes[task.path], reverse=True)
    results = dict(zip(largest_first, mapper(summarize_file, largest_first), strict=True))
    for task in stale:
        found = results[task]
        if found is not None:
            entry, summary = found
            index.entries[task.path] = entry
            index.summaries[task.path] = parsed[_relative(task.path, root)] = summary
    index.parsed = len(stale)
    manifest = {_relative(path, root): entry for path, entry in index.entries.items()}
    if store is not None and (touched or parsed or manifest.keys() != known.keys()):
        store.save(manifest, parsed)
    return index


def summarize_file(task: ParseTask) -> tuple[Entry, ModuleSummary] | None:
    """Read, decode and summarise one file (run in a worker process for large projects)."""
    try:
        stat = task.path.stat()
        data = task.path.read_bytes()
    except OSError:
        return None
    summary = summarize_bytes(data, task.module, task.path.name == "__init__.py")
    sha = hashlib.sha256(data).hexdigest()
    entry = Entry(stat.st_size, stat.st_mtime_ns, sha, task.module, summary.shape(), summary.syntax_error is None)
    return entry, summary


def _summarize(path: Path, module: str) -> ModuleSummary:
    """A summary the store lost, parsed again from the file."""
    found = summarize_file(ParseTask(path, module))
    return found[1] if found is not None else failed(module, (1, 1, "File could not be read"))


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
