"""Each finding with its source line and a caret under the reported span."""

from torchperf_lint.diagnostics import Diagnostic
from torchperf_lint.lines import split_lines
from torchperf_lint.reporters.text import line


def render(findings: list[Diagnostic], sources: dict[str, str]) -> str:
    blocks = []
    for finding in findings:
        lines = split_lines(sources.get(finding.path, ""))
        block = [line(finding)]
        if 0 < finding.row <= len(lines):
            code = lines[finding.row - 1]
            end = finding.end_column if finding.end_row == finding.row else len(code) + 1
            width = max(1, end - finding.column)
            gutter = f"{finding.row:>4} | "
            block += [gutter + code, " " * (len(gutter) + finding.column - 1) + "^" * width]
        blocks.append("\n".join(block) + "\n")
    return "\n".join(blocks)
