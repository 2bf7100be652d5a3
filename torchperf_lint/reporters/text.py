"""The default format: ``path:row:col: CODE message``, one finding a line."""

from torchperf_lint.diagnostics import Diagnostic
from torchperf_lint.fixes import SAFE


def line(finding: Diagnostic) -> str:
    """One finding; ``[*]`` marks a safe fix, as Ruff does."""
    marker = "[*] " if finding.fix is not None and finding.fix.applicability == SAFE else ""
    return f"{finding.path}:{finding.row}:{finding.column}: {finding.code} {marker}{finding.message}"


def render(findings: list[Diagnostic]) -> str:
    return "".join(line(finding) + "\n" for finding in findings)
