"""The process exit codes every command shares, as Ruff uses them."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    CLEAN = 0  # nothing to report
    FINDINGS = 1  # findings remain (or something was fixed, with --exit-non-zero-on-fix)
    ERROR = 2  # usage, configuration, I/O or internal error
