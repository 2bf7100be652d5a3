"""The default format: ``path:row:col: CODE message``, one finding a line."""

from torchperf_lint.diagnostics import Diagnostic


def line(finding: Diagnostic) -> str:
    return f"{finding.path}:{finding.row}:{finding.column}: {finding.code} {finding.message}"


def render(findings: list[Diagnostic]) -> str:
    return "".join(line(finding) + "\n" for finding in findings)
