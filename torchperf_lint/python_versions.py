"""Python versions as the ``target-version`` setting spells them (``py312``), and where they come from.

Kept free of LibCST so that reading a configuration stays cheap.
"""

from __future__ import annotations

import re
import sys

Version = tuple[int, int]
#: The versions ``target-version`` accepts: the Pythons torchperf-lint runs on, and newer ones.
SUPPORTED: tuple[Version, ...] = ((3, 11), (3, 12), (3, 13), (3, 14))
#: Without ``target-version`` or ``requires-python``: the oldest Python the linter itself runs on.
DEFAULT: Version = SUPPORTED[0]
#: The Python running the linter: CPython's own parse knows its grammar and no newer one.
RUNNING: Version = (sys.version_info.major, sys.version_info.minor)

_LOWER_BOUND = re.compile(r"(?:>=|~=|==|>)\s*3\.(\d+)")


def parse(value: str) -> Version | None:
    """``py312`` as (3, 12); None unless it is one of :data:`SUPPORTED`."""
    match = re.fullmatch(r"py3(\d+)", value)
    version = (3, int(match.group(1))) if match else None
    return version if version in SUPPORTED else None


def spelled(version: Version) -> str:
    """(3, 12) as Ruff spells it: ``py312``."""
    return f"py{version[0]}{version[1]}"


def dotted(version: Version) -> str:
    """(3, 12) as Python's documentation spells it: ``3.12``."""
    return f"{version[0]}.{version[1]}"


def from_requires_python(specifier: str) -> Version:
    """The target a ``requires-python`` specifier implies, as Ruff infers it: its lowest 3.x lower
    bound (``>=3.12,<4`` is 3.12), raised to :data:`DEFAULT` when older, since older syntax is not
    this linter's to check; :data:`DEFAULT` when it names no lower bound."""
    bounds = [(3, int(minor)) for minor in _LOWER_BOUND.findall(specifier)]
    lowest = min(bounds, default=DEFAULT)
    return min(max(lowest, DEFAULT), SUPPORTED[-1])
