"""What ``handoff check`` reads: the report, its results and notes (by default next to it) and the
kernel source (by default the package this module belongs to, installed or checked out)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..bench.provenance import package_root
from .render import ResultsError, rows_of


@dataclass(frozen=True)
class Inputs:
    """The report and what it must agree with, with the paths to name in messages."""

    report: str
    report_text: str
    results_name: str
    results: dict
    notes_name: str | None
    notes: str
    source: Path
    source_name: str


class InputError(ValueError):
    """An input of the check cannot be read or is not in the schema: nothing could be verified."""


#: The results file ``handoff check`` looks for next to the report when none is given.
DEFAULT_RESULTS = "bench-full.json"
DEFAULT_NOTES = "notes.md"


def load_inputs(report: Path, results: Path | None, notes: Path | None, source: Path | None) -> Inputs:
    """Read the report, its results and notes (by default next to it) and locate the kernel source
    (by default the package this module belongs to, installed or checked out)."""
    results = results or _default_results(report)
    notes = notes if notes is not None else _sibling(report, DEFAULT_NOTES)
    source_dir = source if source is not None else package_root()
    if not source_dir.is_dir():
        raise InputError(f"{source_dir}: the kernel source folder does not exist")
    inputs = Inputs(
        report=str(report),
        report_text=_read(report),
        results_name=str(results),
        results=_read_json(results),
        notes_name=str(notes) if notes else None,
        notes=_read(notes) if notes else "",
        source=source_dir.resolve(),
        source_name=str(source) if source is not None else _display(source_dir),
    )
    try:
        rows_of(inputs.results)
    except ResultsError as error:
        raise InputError(f"{results}: {error}") from None
    return inputs


def _default_results(report: Path) -> Path:
    found = _sibling(report, DEFAULT_RESULTS)
    if found is not None:
        return found
    candidates = sorted(report.parent.glob("*.json"))
    if len(candidates) == 1:
        return candidates[0]
    raise InputError(f"{report}: no {DEFAULT_RESULTS} (or single results JSON) next to the report; pass --results")


def _sibling(report: Path, name: str) -> Path | None:
    path = report.parent / name
    return path if path.is_file() else None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: cannot read: {getattr(error, 'strerror', None) or error}") from None


def _read_json(path: Path) -> dict:
    try:
        document = json.loads(_read(path))
    except json.JSONDecodeError as error:
        raise InputError(f"{path}:{error.lineno}:{error.colno}: invalid JSON: {error.msg}") from None
    if not isinstance(document, dict):
        raise InputError(f"{path}: benchmark results must be a JSON object")
    return document


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
