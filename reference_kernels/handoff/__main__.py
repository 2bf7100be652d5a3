"""``python -m torchperf_lint.reference_kernels.handoff RESULTS.json [--notes NOTES.md] [-o HANDOFF.md]``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .render import ResultsError, render_handoff


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m torchperf_lint.reference_kernels.handoff")
    parser.add_argument("results", type=Path, help="benchmark results JSON (schema torchperf-bench/4)")
    parser.add_argument("--notes", type=Path, help="Markdown notes: one '## Section' block per handoff section")
    parser.add_argument("-o", "--output", type=Path, help="write the report here instead of stdout")
    args = parser.parse_args(argv)
    try:
        results = json.loads(args.results.read_text(encoding="utf-8"))
        notes = args.notes.read_text(encoding="utf-8") if args.notes else ""
        report = render_handoff(results, notes)
    except (OSError, json.JSONDecodeError, ResultsError, KeyError) as error:
        print(f"handoff: cannot render {args.results}: {error}", file=sys.stderr)
        return 2
    if args.output:
        args.output.write_text(report, encoding="utf-8")
    else:
        sys.stdout.write(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
