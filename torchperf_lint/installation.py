"""The command that adds an extra to this installation of torchperf-lint, from wherever it came.

The package is not on a package index, so ``pip install "torchperf-lint[server]"`` finds nothing.
pip records where each package came from (``direct_url.json``, PEP 610): a checkout, a repository
URL, a wheel file. The command repeats that source with the extra added, and runs the pip of the
interpreter running the linter, so the extra lands in the environment that needs it.
"""

from __future__ import annotations

import json
import shlex
import sys
from importlib.metadata import distributions
from pathlib import Path
from urllib.parse import unquote, urlparse

DISTRIBUTION = "torchperf-lint"
#: The checkout this module sits in, when it is run from one without being installed.
_CHECKOUT = Path(__file__).resolve().parent.parent


def extra_command(extra: str) -> str:
    """A shell command that installs the ``extra`` of this copy of torchperf-lint."""
    return f"{shlex.quote(sys.executable)} -m pip install {requirement(extra, _origin())}"


def requirement(extra: str, origin: dict | None) -> str:
    """pip's arguments for torchperf-lint with ``extra``, from ``origin`` (the parsed
    ``direct_url.json``; None for an install from an index, or for a checkout run uninstalled)."""
    if origin is None:
        source = str(_CHECKOUT) if (_CHECKOUT / "pyproject.toml").is_file() else DISTRIBUTION
        return shlex.quote(f"{source}[{extra}]")
    url = origin["url"]
    if "vcs_info" in origin:
        vcs = origin["vcs_info"]
        return shlex.quote(f"{DISTRIBUTION}[{extra}] @ {vcs['vcs']}+{url}@{vcs['commit_id']}")
    if "dir_info" in origin and url.startswith("file:"):
        editable = "-e " if origin["dir_info"].get("editable") else ""
        return editable + shlex.quote(f"{unquote(urlparse(url).path)}[{extra}]")
    return shlex.quote(f"{DISTRIBUTION}[{extra}] @ {url}")


def _origin() -> dict | None:
    """Where pip installed torchperf-lint from (a stale ``.egg-info`` of a checkout has no record)."""
    for found in distributions(name=DISTRIBUTION):
        recorded = found.read_text("direct_url.json")
        if recorded:
            return json.loads(recorded)
    return None
