"""``torchperf-lint handoff render|check``: the reference kernels' benchmark report.

The renderer and the check live with the reference kernels and need Jinja2 and LibCST only, never
torch, so they are imported here on use rather than duplicated in the engine.
"""

from __future__ import annotations

import argparse
import json
import sys

from torchperf_lint.exit_codes import ExitCode
from torchperf_lint.selection import UsageError


def run(args: argparse.Namespace) -> ExitCode:
    if args.action == "check":
        return _check(args)
    from torchperf_lint.reference_kernels.handoff import ResultsError, render_handoff

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


def _check(args: argparse.Namespace) -> ExitCode:
    """One line per failure and exit 1, or one line saying what was verified and exit 0."""
    from torchperf_lint.reference_kernels.handoff import InputError, load_inputs, verify

    try:
        inputs = load_inputs(args.report, args.results, args.notes, args.source)
    except InputError as error:
        raise UsageError(str(error)) from None
    verification = verify(inputs)
    for failure in verification.failures:
        print(failure)
    if verification.failures:
        return ExitCode.FINDINGS
    print(verification.summary(inputs.report))
    return ExitCode.CLEAN
