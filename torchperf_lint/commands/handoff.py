"""``torchperf-lint handoff render|check``: the reference kernels' benchmark report.

The renderer lives with the reference kernels and imports Jinja2 only, never torch, so it is
imported here on use rather than duplicated in the engine.
"""

from __future__ import annotations

import argparse
import json
import sys

from torchperf_lint.exit_codes import ExitCode
from torchperf_lint.selection import UsageError


def run(args: argparse.Namespace) -> ExitCode:
    from torchperf_lint.reference_kernels.handoff import ResultsError, missing_sections, render_handoff

    if args.action == "check":
        problems = missing_sections(args.report.read_text(encoding="utf-8"))
        for problem in problems:
            print(f"{args.report}: {problem}")
        return ExitCode.FINDINGS if problems else ExitCode.CLEAN
    try:
        results = json.loads(args.results.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise UsageError(f"{args.results}:{error.lineno}:{error.colno}: not valid JSON: {error.msg}") from None
    try:
        report = render_handoff(results, args.notes.read_text(encoding="utf-8") if args.notes else "")
    except (ResultsError, KeyError) as error:
        raise UsageError(f"{args.results}: not benchmark results in the documented schema: {error}") from None
    if args.output is None:
        sys.stdout.write(report)
    else:
        args.output.write_text(report, encoding="utf-8")
    return ExitCode.CLEAN
