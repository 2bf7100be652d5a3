"""The project index on disk, next to the findings cache.

Three kinds of entry, each replaced by rename so a concurrent run reads the old version or the new one,
and each a miss (never trusted) when it cannot be read:

- a summary per file, keyed by the file's content hash, its module name and the tool's code, so a
  change rewrites only the summaries of the files that changed;
- a manifest per project: for each file its size, modification time, content hash, module and shape
  (the summary's hash without line numbers). A run trusts a file whose size and time match without
  reading it, re-hashes one whose time moved, and parses only files whose bytes changed;
- the kernel map's facts per project, keyed by the shapes of all its files and the map's settings: an
  edit that moves code without changing any function's calls, checks or claims reuses them without
  loading a single summary.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from torchperf_lint.cache import prepare
from torchperf_lint.index.summary import FORMAT, ModuleSummary
from torchperf_lint.kernel_map.facts import FileFacts


@dataclass(frozen=True)
class Entry:
    """What the manifest records of one file."""

    size: int
    mtime_ns: int
    sha256: str
    module: str
    shape: str
    #: Whether CPython parsed the file: the engine then need not check the same bytes' syntax again.
    parses: bool


class IndexStore:
    """The stored index of one project."""

    def __init__(self, cache_dir: Path, tool: str, root: Path) -> None:
        self.cache_dir = cache_dir
        self.base = cache_dir / f"index-v{FORMAT}"
        # Several projects (or packages, where no configuration names a project) share a cache folder.
        project = _digest(str(root))
        self.manifest = self.base / "projects" / f"{project}.json"
        self.facts = self.base / "facts" / f"{project}.json"
        self.tool = tool

    def load_manifest(self) -> dict[str, Entry]:
        """The manifest this version of the tool wrote; empty when missing or unreadable."""
        try:
            document = json.loads(self.manifest.read_text(encoding="utf-8"))
            if document.get("tool") != self.tool:
                return {}
            return {relative: Entry(*row) for relative, row in document["files"].items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return {}

    def load_summary(self, entry: Entry) -> ModuleSummary | None:
        try:
            summary = ModuleSummary.from_json(json.loads(self._summary(entry).read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError, AttributeError):
            return None
        return summary if summary.module == entry.module else None

    def load_facts(self, key: str) -> dict[str, FileFacts] | None:
        """The facts stored under ``key``, per module; None when another key (or nothing) is stored."""
        try:
            document = json.loads(self.facts.read_text(encoding="utf-8"))
            if document.get("key") != key:
                return None
            return {module: FileFacts.from_json(row) for module, row in document["modules"].items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def save(self, manifest: dict[str, Entry], summaries: dict[str, ModuleSummary]) -> None:
        """Write the new ``summaries`` (by relative path) and the manifest; a cache folder that cannot
        be written is skipped, never an error."""
        try:
            for relative, summary in summaries.items():
                target = self._summary(manifest[relative])
                if not target.exists():
                    prepare(self.cache_dir, target.parent)
                    _write(target, summary.to_json())
            rows = {
                rel: [e.size, e.mtime_ns, e.sha256, e.module, e.shape, e.parses]
                for rel, e in sorted(manifest.items())
            }
            prepare(self.cache_dir, self.manifest.parent)
            _write(self.manifest, {"tool": self.tool, "files": rows})
        except OSError:
            return

    def save_facts(self, key: str, facts: dict[str, FileFacts]) -> None:
        modules = {
            module: found.to_json()
            for module, found in sorted(facts.items())
            if found.roles or found.returns or found.aliases
        }
        try:
            prepare(self.cache_dir, self.facts.parent)
            _write(self.facts, {"key": key, "modules": modules})
        except OSError:
            return

    def _summary(self, entry: Entry) -> Path:
        key = _digest(f"{self.tool}\0{entry.sha256}\0{entry.module}")
        return self.base / "summaries" / key[:2] / f"{key}.json"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _write(target: Path, document: object) -> None:
    handle, temporary = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
        json.dump(document, stream, separators=(",", ":"))
    os.replace(temporary, target)
