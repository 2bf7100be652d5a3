"""Rule pages as Markdown files, so each diagnostic's code can link to its page (``codeDescription``).

``codeDescription`` needs a URI, and the pages are the ones ``torchperf-lint rule CODE`` prints, for
whatever rule packs are installed. They are written once per catalog into the user's cache folder,
under a name taken from their content: two servers with different packs never overwrite each other,
and a page a link points to never changes under it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sys
import tempfile
from pathlib import Path

from torchperf_lint.explain import rule_markdown
from torchperf_lint.registry import all_rules

logger = logging.getLogger(__name__)


def cache_home() -> Path:
    """The platform's per-user cache folder (``XDG_CACHE_HOME`` wins wherever it is set)."""
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"])
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"])
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches"
    return Path.home() / ".cache"


def write_pages(home: Path | None = None) -> dict[str, str]:
    """Each rule code's page URI; empty when the pages cannot be written (diagnostics then go
    without a link, and hover still shows the page)."""
    pages = {code: rule_markdown(rule) for code, rule in all_rules().items()}
    digest = hashlib.sha256("\0".join(f"{code}\0{page}" for code, page in pages.items()).encode()).hexdigest()
    folder = (home or cache_home()) / "torchperf-lint" / "rule-pages" / digest[:16]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for code, page in pages.items():
            _write_once(folder / f"{code}.md", page)
    except OSError as error:
        logger.warning("rule pages not written to %s (%s); diagnostics go without a link", folder, error)
        return {}
    return {code: (folder / f"{code}.md").as_uri() for code in pages}


def _write_once(path: Path, text: str) -> None:
    """Write by rename, so a second server starting at the same time never sees half a page."""
    if path.is_file():
        return
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
