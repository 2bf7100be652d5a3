"""The project index on disk: one JSON file per project, next to the findings cache.

Each file's summary is stored with the file's size, modification time and content hash. A run trusts
a summary whose size and time match without reading the file, re-hashes a file whose time moved (a
checkout that rewrote identical bytes costs a read, not a parse), and parses only files whose bytes
changed. The whole index is replaced by rename, so a concurrent run reads the old one or the new one.
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


@dataclass(frozen=True)
class Stored:
    size: int
    mtime_ns: int
    sha256: str
    summary: ModuleSummary


class IndexStore:
    """The stored summaries of one project, keyed by path relative to the project root."""

    def __init__(self, cache_dir: Path, tool: str, root: Path) -> None:
        # Several projects (or packages, where no configuration names a project) may share a cache folder.
        name = hashlib.sha256(str(root).encode()).hexdigest()[:16]
        self.path = cache_dir / f"index-v{FORMAT}" / f"{name}.json"
        self.tool = tool

    def load(self) -> dict[str, Stored]:
        """What was stored by this version of the tool; nothing when the file is missing or damaged."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if data.get("tool") != self.tool:
                return {}
            return {
                relative: Stored(size, mtime, sha, ModuleSummary.from_json(summary))
                for relative, (size, mtime, sha, summary) in data["files"].items()
            }
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return {}

    def save(self, entries: dict[str, Stored]) -> None:
        """Replace the stored index; a cache folder that cannot be written is skipped, never an error."""
        files = {
            relative: (entry.size, entry.mtime_ns, entry.sha256, entry.summary.to_json())
            for relative, entry in sorted(entries.items())
        }
        try:
            prepare(self.path.parent.parent, self.path.parent)
            handle, temporary = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump({"tool": self.tool, "files": files}, stream, separators=(",", ":"))
            os.replace(temporary, self.path)
        except OSError:
            return
