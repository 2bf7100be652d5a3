"""Output formats: each module renders a list of findings as one format."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from torchperf_lint.diagnostics import Diagnostic


@dataclass(frozen=True)
class ReportContext:
    """What a format may need besides the findings."""

    root: Path  # repository-relative paths (SARIF) are taken from here
    sources: dict[str, str] = field(default_factory=dict)  # decoded text by display path, for `full`


Reporter = Callable[[list[Diagnostic], ReportContext], str]


def _reporters() -> dict[str, Reporter]:
    from torchperf_lint.reporters import full, github, json_format, sarif, text

    return {
        "text": lambda findings, context: text.render(findings),
        "concise": lambda findings, context: text.render(findings),
        "full": lambda findings, context: full.render(findings, context.sources),
        "json": lambda findings, context: json_format.render(findings),
        "json-lines": lambda findings, context: json_format.render_lines(findings),
        "sarif": sarif.render,
        "github": lambda findings, context: github.render(findings),
    }


#: Format name -> renderer.
REPORTERS: dict[str, Reporter] = _reporters()
#: Formats meant for people: these get the summary line and the statistics table.
HUMAN_FORMATS = frozenset({"text", "concise", "full"})
#: Formats ``--statistics`` can be written in: a table for people, or a JSON list.
STATISTICS_FORMATS = HUMAN_FORMATS | {"json"}
