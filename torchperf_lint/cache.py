"""Content-hash cache of findings, so an unchanged file under unchanged settings is never parsed again.

The key covers the tool's code (version plus the size and mtime of every module of the engine and of
each active rule), the file's resolved options, and the file's bytes. Entries are one small JSON file
each, written by rename, so concurrent runs cannot leave a torn entry; an entry that fails to load or
has the wrong shape is treated as a miss and rewritten, never trusted.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import tempfile
from functools import cache
from pathlib import Path

from torchperf_lint import __version__
from torchperf_lint.diagnostics import Diagnostic
from torchperf_lint.fixes import Fix

DIRECTORY_NAME = ".torchperf_lint_cache"
_FORMAT = 1
_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by torchperf-lint.\n"
    "# For information about cache directory tags, see https://bford.info/cachedir/\n"
)


class Cache:
    """Findings by content key, under ``directory``."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def key(self, data: bytes, fingerprint: str) -> str:
        digest = hashlib.sha256(fingerprint.encode())
        digest.update(b"\0")
        digest.update(data)
        return digest.hexdigest()

    def get(self, key: str, path: str) -> list[Diagnostic] | None:
        """The cached findings for ``key``, re-labelled with ``path``; None on a miss or a bad entry."""
        try:
            entry = json.loads(self._entry(key).read_text(encoding="utf-8"))
            if entry.get("format") != _FORMAT:
                return None
            return [_finding(path, item) for item in entry["findings"]]
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def put(self, key: str, findings: list[Diagnostic]) -> None:
        """Store ``findings``; a cache that cannot be written is skipped, never an error."""
        entry = {"format": _FORMAT, "findings": [_item(f) for f in findings]}
        target = self._entry(key)
        try:
            self._prepare(target.parent)
            handle, temporary = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(entry, stream)
            os.replace(temporary, target)
        except OSError:
            return

    def _entry(self, key: str) -> Path:
        return self.directory / f"v{_FORMAT}" / key[:2] / f"{key}.json"

    def _prepare(self, folder: Path) -> None:
        if not folder.is_dir():
            prepare(self.directory, folder)


def prepare(directory: Path, folder: Path) -> None:
    """Create ``folder`` inside the cache ``directory``, marking the directory as a cache (ignored
    by git, skipped by backup tools) the first time."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in ((".gitignore", "# Created by torchperf-lint\n*\n"), ("CACHEDIR.TAG", _TAG)):
        marker = directory / name
        if not marker.exists():
            marker.write_text(text, encoding="utf-8")


def clear(directory: Path) -> bool:
    """Delete the cache folder; False when there was none."""
    if not directory.is_dir():
        return False
    shutil.rmtree(directory)
    return True


@cache
def code_fingerprint(modules: tuple[str, ...]) -> str:
    """The tool version plus size and mtime of the engine's files and of the given rule modules
    (found without importing them), so editing a rule in a development checkout invalidates what
    it cached."""
    files = sorted(Path(__file__).parent.rglob("*.py"))
    files += [Path(origin) for origin in map(_origin, modules) if origin is not None]
    parts = [__version__]
    for file in files:
        try:
            stat = file.stat()
        except OSError:
            continue
        parts.append(f"{file}:{stat.st_size}:{stat.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _origin(module: str) -> str | None:
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    return spec.origin if spec is not None else None


def _item(finding: Diagnostic) -> list[object]:
    fix = finding.fix.as_json() if finding.fix is not None else None
    return [finding.row, finding.column, finding.code, finding.message, finding.end_row, finding.end_column, fix]


def _finding(path: str, item: list) -> Diagnostic:
    row, column, code, message, end_row, end_column, fix = item
    if not all(isinstance(n, int) for n in (row, column, end_row, end_column)) or not isinstance(message, str):
        raise TypeError("malformed cache entry")
    return Diagnostic(path, row, column, code, message, end_row, end_column, Fix.from_json(fix) if fix else None)
