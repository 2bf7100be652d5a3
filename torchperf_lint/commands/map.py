"""``torchperf-lint map [PATH]``: the kernel map of the projects under PATH, every entry with its reason.

The map is the one every other entry point uses (``check``, stdin, pre-commit, the editor server and
the reviewers' script), built from the same project index, so what it shows is what the rules see.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from torchperf_lint.discovery import discover
from torchperf_lint.exit_codes import ExitCode
from torchperf_lint.index.build import scope_root
from torchperf_lint.kernel_map.infer import Entry, KernelMap
from torchperf_lint.kernel_map.project import ProjectMap, project_map
from torchperf_lint.selection import UsageError
from torchperf_lint.workspace import Overrides, config_values, project_for


def run(args: argparse.Namespace) -> ExitCode:
    config, snippets = config_values(args.config or ())
    overrides = Overrides(config=config, snippets=snippets)
    paths = args.paths or [Path(".")]
    files, skipped = discover(paths, lambda p: project_for(p, overrides).settings)
    missing = [skip.path for skip in skipped if skip.missing]
    if missing:
        raise UsageError(f"{missing[0]}: no such file or directory")
    wanted = {file.resolve() for file in files}
    maps: dict[Path, ProjectMap] = {}
    for file in files:
        project = project_for(file, overrides)
        root = scope_root(file, project.settings) or file.resolve().parent
        if root not in maps:
            cache_dir = None if args.no_cache else project.cache_dir
            maps[root] = project_map(root, project.settings, cache_dir)
    rows = [row for found in maps.values() for row in _rows(found, wanted)]
    conventions = {
        package: text for found in maps.values() for package, text in found.kernel_map.conventions.items()
    }
    if args.output_format == "json":
        json.dump({"functions": rows, "conventions": conventions}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(_text(rows, conventions))
    return ExitCode.CLEAN


def _rows(found: ProjectMap, wanted: set[Path]) -> list[dict]:
    """The map's entries for the files asked about, as plain data."""
    path_of = {entry.module: path for path, entry in found.index.entries.items()}
    rows = []
    for entry in found.kernel_map.entries():
        path = path_of.get(entry.module)
        if path is None or path not in wanted:
            continue
        rows.append(_row(entry, path, found.kernel_map))
    return rows


def _row(entry: Entry, path: Path, kernel_map: KernelMap) -> dict:
    role, function = entry.role, entry.function
    prevalidated = role.prevalidated
    return {
        "path": _shown(path),
        "line": function.line,
        "function": function.qualname,
        "prevalidated": None
        if prevalidated is None
        else {
            "reason": prevalidated.reason,
            "declared": prevalidated.explicit,
            "covers": [
                {"params": s.params, "properties": s.properties, "checks": s.conditions}
                for s in prevalidated.scopes
            ],
        },
        "primitive": None if role.primitive is None else {"reason": role.primitive, "declared": role.declared},
        "grad_guard": _grad_guard(entry, kernel_map),
    }


def _grad_guard(entry: Entry, kernel_map: KernelMap) -> str | None:
    """For a function that makes heavy calls: ``guarded``, or why TPL007 asks for a guard."""
    if not entry.function.heavy:
        return None
    return "guarded" if entry.function.qualname in kernel_map.guarded else entry.role.grad_guard


def _covers(scope: dict) -> str:
    """``volume: dtype, shape``, ``all parameters: every property``, or the exact checks made."""
    who = ", ".join(scope["params"]) if scope["params"] is not None else "all parameters"
    what = [] if scope["properties"] == () else [", ".join(scope["properties"] or ("every property",))]
    checks = [f"`{check}`" for check in scope["checks"]]
    return f"{who}: " + "; ".join(what + checks)


def _shown(path: Path) -> str:
    try:
        return path.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def _text(rows: list[dict], conventions: dict[str, str]) -> str:
    lines = []
    for row in rows:
        lines.append(f"{row['path']}:{row['line']}: {row['function']}")
        if row["prevalidated"] is not None:
            covers = "; ".join(map(_covers, row["prevalidated"]["covers"]))
            lines.append(f"    prevalidated: {row['prevalidated']['reason']} (covers {covers})")
        if row["primitive"] is not None:
            lines.append(f"    primitive: {row['primitive']['reason']}")
        if row["grad_guard"] == "guarded":
            lines.append("    grad guard: its heavy calls run under one")
        elif row["grad_guard"] is not None:
            lines.append(f"    grad guard: required (TPL007), since {row['grad_guard']}")
    prevalidated = sum(row["prevalidated"] is not None for row in rows)
    primitives = sum(row["primitive"] is not None for row in rows)
    files = len({row["path"] for row in rows})
    lines.append(f"{prevalidated} prevalidated, {primitives} primitives in {files} file{'s' * (files != 1)}.")
    for package, text in sorted(conventions.items()):
        lines.append(f"Grad-guard convention of `{package}`: {text}.")
    if not conventions:
        lines.append(
            "No package runs most of its primitives' heavy calls under a grad guard: no TPL007 by inference."
        )
    return "\n".join(lines) + "\n"
