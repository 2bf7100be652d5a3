"""The finding type every stage after the rules passes along."""

from __future__ import annotations

from dataclasses import dataclass, field

from torchperf_lint.fixes import Fix

#: The code of a file that cannot be read, decoded or parsed.
SYNTAX_ERROR = "TPL900"


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One finding. Rows and columns are 1-based; columns count code points."""

    path: str
    row: int
    column: int
    code: str
    message: str
    end_row: int
    end_column: int
    fix: Fix | None = field(default=None, compare=False)
