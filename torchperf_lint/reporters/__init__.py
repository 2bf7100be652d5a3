"""Output formats: each module renders a list of findings as one format."""

from __future__ import annotations

from collections.abc import Callable

from torchperf_lint.diagnostics import Diagnostic
from torchperf_lint.reporters import full, json_format, text

Reporter = Callable[[list[Diagnostic], dict[str, str]], str]

#: Format name -> renderer. The mapping gives each renderer the sources it may need by path.
REPORTERS: dict[str, Reporter] = {
    "text": lambda findings, sources: text.render(findings),
    "concise": lambda findings, sources: text.render(findings),
    "full": full.render,
    "json": lambda findings, sources: json_format.render(findings),
}
