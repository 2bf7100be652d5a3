"""GitHub Actions workflow commands: one ``::error`` annotation per finding.

Message data escapes ``%``, CR and LF; property values also escape ``:`` and ``,``, as the Actions
runner reads them.
"""

from torchperf_lint.diagnostics import Diagnostic


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Diagnostic) -> str:
    properties = {
        "title": f"torchperf-lint ({finding.code})",
        "file": finding.path,
        "line": str(finding.row),
        "col": str(finding.column),
        "endLine": str(finding.end_row),
        "endColumn": str(finding.end_column),
    }
    head = ",".join(f"{key}={escape_property(value)}" for key, value in properties.items())
    where = f"{finding.path}:{finding.row}:{finding.column}: {finding.code} {finding.message}"
    return f"::error {head}::{escape_data(where)}"


def render(findings: list[Diagnostic]) -> str:
    return "".join(annotation(f) + "\n" for f in findings)
