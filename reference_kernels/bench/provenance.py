"""What a benchmark run measured and where: the results JSON's ``provenance`` block.

A timing is evidence only for the code that produced it, so the block records a sha256 of every
source file of the kernel package that the run had imported by the time it finished, next to the
machine and the exact command. ``handoff check`` hashes the same files again to prove the results
are not stale. Needs no torch: the caller passes the torch version it imported.

The hash covers a file's code, not its comments: the tokens Python reads, without comments and
comment-only lines. The evidence comments on thresholds cite the results they sit next to, so editing
a citation must not make those results stale; any other edit, down to a changed literal or
indentation, does.
"""

from __future__ import annotations

import hashlib
import io
import os
import platform
import shlex
import sys
import tokenize
from pathlib import Path

#: The package whose imported sources are hashed.
PACKAGE = __package__.rsplit(".", 1)[0]
#: How the harness is started; the recorded command is this plus the arguments exactly as given.
ENTRY = f"python -m {PACKAGE}.bench"


def provenance(*, argv: list[str], threads: list[int], torch_version: str) -> dict:
    """The ``provenance`` block for a run started with ``argv`` (the arguments after the module)."""
    return {
        "command": " ".join([ENTRY, *map(shlex.quote, argv)]),
        "torch": torch_version,
        "threads": list(threads),
        "cpu": cpu_name(),
        "cores": os.cpu_count(),
        "package": PACKAGE,
        "sources": imported_source_hashes(),
    }


def source_sha256(path: Path) -> str:
    """sha256 of the file's Python tokens without comments; of its bytes when it does not tokenize."""
    data = path.read_bytes()
    digest = hashlib.sha256()
    try:
        for token in tokenize.tokenize(io.BytesIO(data).readline):
            if token.type not in (tokenize.COMMENT, tokenize.NL):
                digest.update(f"{token.type} {token.string}\n".encode())
    except (tokenize.TokenError, SyntaxError):
        return hashlib.sha256(b"bytes\n" + data).hexdigest()
    return digest.hexdigest()


def package_root() -> Path:
    """The folder of the kernel package this module belongs to (installed or checked out)."""
    return Path(__file__).resolve().parents[1]


def imported_source_hashes() -> dict[str, str]:
    """sha256 of every file of the kernel package now in ``sys.modules``, keyed by its path relative
    to the package folder (``routers.py``, ``bench/regions.py``), sorted."""
    root = package_root()
    files = set()
    for name, module in list(sys.modules.items()):
        spec = getattr(module, "__spec__", None)
        qualified = spec.name if spec is not None else name  # ``__main__`` under ``python -m``
        location = getattr(module, "__file__", None)
        if location and (qualified == PACKAGE or qualified.startswith(PACKAGE + ".")):
            files.add(Path(location).resolve())
    return {path.relative_to(root).as_posix(): source_sha256(path) for path in sorted(files)}


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"
