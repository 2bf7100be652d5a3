"""Lint a source string with chosen rules, the way the engine lints a file; build runner jobs."""

from pathlib import Path

from torchperf_lint.config import Settings
from torchperf_lint.engine import lint_bytes
from torchperf_lint.registry import all_rules
from torchperf_lint.runner import Job
from torchperf_lint.workspace import FileSettings, Project, file_settings


def lint(source: str, *codes: str, prevalidated: tuple[str, ...] = (), module: str = "m") -> list:
    """Findings for ``source`` linted on its own (its kernel map inferred from it alone)."""
    chosen = codes or tuple(all_rules())
    enabled = frozenset(chosen) | {"TPL900", "TPL901"}
    project = Project.of(Settings(root=Path.cwd(), prevalidated=prevalidated), enabled)
    file = FileSettings(Path("example.py"), project, module, enabled)
    return lint_bytes(source.encode(), file)


def spots(source: str, *codes: str, **kwargs) -> list[tuple[str, int, int]]:
    return [(d.code, d.row, d.column) for d in lint(source, *codes, **kwargs)]


def jobs(root: Path, names: list[str], cache_dir: Path | None = None) -> list[Job]:
    """Runner jobs for ``root/name`` with every rule on and default settings rooted at ``root``."""
    project = Project.of(Settings(root=root), frozenset(all_rules()))
    if cache_dir is not None:
        project = Project(project.settings, project.enabled, cache_dir)
    return [Job(root / name, name, file_settings(root / name, project)) for name in names]


def lint_package(root: Path, files: dict[str, str], *codes: str) -> list[tuple[str, str, int, int]]:
    """Write ``files`` (relative path -> source) under ``root`` as one project and lint them as the
    command line does, the project index and kernel map included: (path, code, row, column) per
    finding of the chosen rules. For facts that cross modules (what a helper in another file returns)."""
    from torchperf_lint.kernel_map.project import attach
    from torchperf_lint.runner import run

    (root / "pyproject.toml").write_text("[tool.torchperf-lint]\n")
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    chosen = frozenset(codes or all_rules()) | {"TPL900"}
    project = Project.of(Settings(root=root, source=root / "pyproject.toml"), chosen)
    batch = [Job(root / name, name, file_settings(root / name, project)) for name in files]
    found = run(attach(batch, use_cache=False))
    return [(f.path, f.code, f.row, f.column) for f in found]
