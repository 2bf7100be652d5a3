"""Which settings apply to one file: the one answer every entry point asks for.

The command line (files, and stdin named by ``--stdin-filename``), the pre-commit hook, the reviewers'
script and an in-process editor server all turn a path into its settings through
:func:`settings_for`, so a file gets the same findings whichever way it is linted:

- the project: the nearest ``pyproject.toml`` above the file with a ``[tool.torchperf-lint]`` table
  (Ruff's hierarchical discovery), or ``--config`` for every file. A file with no such table above
  it falls back to the project around the current directory, else to the defaults rooted there;
- its module name, from the package folders around it (and ``namespace-packages``);
- its enabled codes, after ``select``/``ignore`` and its ``per-file-ignores``.

Loaded configurations are cached for the life of the process; a long-running caller (an editor
server) calls :func:`forget` when a ``pyproject.toml`` changes, which :func:`configuration_changed`
tells it even when nothing else does.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from torchperf_lint import python_versions
from torchperf_lint.cache import DIRECTORY_NAME as CACHE_DIRECTORY
from torchperf_lint.config import ConfigError, Settings, config_in, load, with_snippets
from torchperf_lint.discovery import module_name
from torchperf_lint.kernel_map import project as project_maps
from torchperf_lint.kernel_map.facts import FileFacts
from torchperf_lint.registry import known_codes
from torchperf_lint.selection import UsageError, expand, per_file_ignored


@dataclass(frozen=True)
class Overrides:
    """Command-line choices that apply to every file, whichever project it belongs to."""

    config: Path | None = None  # --config FILE: this file's settings for every path
    snippets: tuple[str, ...] = ()  # --config 'KEY = VALUE': keys that replace the file's
    target_version: python_versions.Version | None = None
    select: tuple[str, ...] | None = None  # replaces the configured selection
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    extend_exclude: tuple[str, ...] = ()
    cache_dir: Path | None = None
    respect_gitignore: bool | None = None  # --respect-gitignore / --no-respect-gitignore


def config_values(values: list[str]) -> tuple[Path | None, tuple[str, ...]]:
    """``--config`` values, as Ruff reads them: an existing file, or else a TOML ``KEY = VALUE``
    snippet; one file at most. Every command that takes ``--config`` reads it here, so a correction
    checked with ``map`` is the one ``check`` applies."""
    files: list[Path] = []
    snippets: list[str] = []
    for value in values:
        if Path(value).is_file() or "=" not in value:
            files.append(Path(value))
        else:
            snippets.append(value)
    if len(files) > 1:
        raise UsageError("--config names one file at most (and any number of `KEY = VALUE` overrides)")
    return (files[0] if files else None), tuple(snippets)


@dataclass(frozen=True)
class Project:
    """One configuration, loaded and checked once: its settings and the codes they enable."""

    settings: Settings
    enabled: frozenset[str]
    cache_dir: Path

    @classmethod
    def of(cls, settings: Settings, enabled: frozenset[str]) -> Project:
        """A project built in code (a benchmark, a test), with its cache in the default place."""
        return cls(settings, enabled, settings.root / CACHE_DIRECTORY)


@dataclass(frozen=True)
class FileSettings:
    """Everything besides its bytes that decides one file's findings."""

    path: Path
    project: Project
    module_name: str
    enabled: frozenset[str]  # after this file's per-file-ignores
    #: The kernel map's facts for this file, once its project's map was consulted (None: not yet, and
    #: the engine infers them from the file alone).
    kernel: FileFacts | None = None

    @property
    def settings(self) -> Settings:
        return self.project.settings


_NO_OVERRIDES = Overrides()
_config_of_folder: dict[Path, Path | None] = {}
_projects: dict[tuple[Path | None, Path, Overrides], Project] = {}
#: Every configuration file read or looked for since the last forget(), with its state then.
_seen: dict[Path, tuple[int, int] | None] = {}


def settings_for(path: Path, overrides: Overrides = _NO_OVERRIDES, *, cwd: Path | None = None) -> FileSettings:
    """The settings for the file at ``path`` (it need not exist: stdin and unsaved editor buffers
    are named by the path they stand for). ``cwd`` is the folder the linter runs from (by default
    the process's own); an editor server passes the workspace folder that holds the file."""
    return file_settings(path, project_for(path, overrides, cwd=cwd))


def project_for(path: Path, overrides: Overrides = _NO_OVERRIDES, *, cwd: Path | None = None) -> Project:
    """The project whose configuration governs ``path`` (a file or a folder), as seen from ``cwd``."""
    cwd = Path.cwd() if cwd is None else cwd.resolve()
    if overrides.config is not None:
        config: Path | None = overrides.config
    else:
        absolute = path if path.is_absolute() else cwd / path
        folder = absolute if absolute.is_dir() else absolute.parent
        config = nearest_config(folder)
        if config is None:
            config = nearest_config(cwd)
    key = (config, cwd, overrides)
    project = _projects.get(key)
    if project is None:
        project = _projects[key] = _load_project(config, cwd, overrides)
    return project


def file_settings(path: Path, project: Project) -> FileSettings:
    """``path``'s settings within ``project``: its module name and its per-file-ignores applied."""
    settings = project.settings
    relative = _relative(path, settings.root)
    origin = f"{settings.source}: " if settings.source is not None else ""
    ignored = per_file_ignored(relative, settings.per_file_ignores, known_codes(), origin)
    return FileSettings(
        path=path,
        project=project,
        module_name=module_name(path, settings.root, settings.namespace_packages),
        enabled=project.enabled - ignored,
    )


def nearest_config(folder: Path) -> Path | None:
    """The nearest ``pyproject.toml`` with a ``[tool.torchperf-lint]`` table in ``folder`` or above."""
    folder = folder.resolve()
    chain: list[Path] = []
    found: Path | None = None
    for candidate in (folder, *folder.parents):
        if candidate in _config_of_folder:
            found = _config_of_folder[candidate]
            break
        chain.append(candidate)
        _seen[candidate / "pyproject.toml"] = _state(candidate / "pyproject.toml")
        found = config_in(candidate)
        if found is not None:
            break
    for visited in chain:
        _config_of_folder[visited] = found
    return found


def forget() -> None:
    """Drop every cached configuration (and the project indexes read under them), so the next call
    reads the ``pyproject.toml`` files again."""
    project_maps.forget()
    _config_of_folder.clear()
    _projects.clear()
    _seen.clear()


def configuration_changed() -> bool:
    """Whether a ``pyproject.toml`` that the cached settings were read from, or looked for, has since
    appeared, changed or gone: one ``stat`` per folder visited, cheap enough before every lint."""
    return any(_state(path) != state for path, state in list(_seen.items()))


def _state(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


def _load_project(config: Path | None, cwd: Path, overrides: Overrides) -> Project:
    if overrides.config is not None and not overrides.config.is_file():
        raise UsageError(f"config file {overrides.config} does not exist")
    if config is not None:
        _seen[config] = _state(config)
    settings = with_snippets(load(config, cwd, known_codes()), overrides.snippets, known_codes())
    settings = settings.with_overrides(
        extend_exclude=settings.extend_exclude + overrides.extend_exclude,
        respect_gitignore=overrides.respect_gitignore,
        target_version=overrides.target_version,
    )
    project = Project.of(settings, _enabled(settings, overrides))
    return project if overrides.cache_dir is None else replace(project, cache_dir=overrides.cache_dir)


def _enabled(settings: Settings, overrides: Overrides) -> frozenset[str]:
    """The codes a project enables; a bad selector on the command line names its flag (those of a
    configuration file were checked, naming the file and key, when it was read)."""
    known = known_codes()

    def configured(key: str, selectors: tuple[str, ...]) -> set[str]:
        try:
            return expand(selectors, known, f"{settings.source}: `{key}`" if settings.source else key)
        except UsageError as error:
            raise ConfigError(str(error)) from None

    if overrides.select is None:
        chosen = configured("select", settings.select)
    else:
        chosen = expand(overrides.select, known, "--select")
    chosen |= configured("extend-select", settings.extend_select) | expand(
        overrides.extend_select, known, "--extend-select"
    )
    ignored = configured("ignore", settings.ignore) | expand(overrides.ignore, known, "--ignore")
    return frozenset(chosen - ignored)


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()
