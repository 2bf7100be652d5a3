#!/usr/bin/env python3
"""Lint a change set with torchperf-lint and print a compact JSON summary for a reviewer.

    python review_changes.py [PATH ...] [--base REV] [--limit N]

With paths, those files are checked; otherwise the Python files changed since --base (default:
HEAD, i.e. uncommitted changes) according to git. Prints one JSON object: files checked, findings in
total, counts per rule, and the first --limit findings (default 20) with file, line, column, rule,
message and the rule's one-line hint.

Exit codes: 0 no findings, 1 findings, 2 the review could not run (git or the linter failed).
It never prompts.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

LINTER = [sys.executable, "-m", "torchperf_lint"]


class ReviewError(Exception):
    """The change set or the linter could not be read."""


def changed_files(base: str) -> list[str]:
    command = ["git", "diff", "--name-only", "--diff-filter=ACMR", base, "--", "*.py", "*.pyi"]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise ReviewError(f"git diff against {base!r} failed: {result.stderr.strip()}")
    top = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True).stdout.strip()
    return [str(Path(top) / name) for name in result.stdout.split()]


def lint(files: list[str]) -> list[dict]:
    command = [*LINTER, "check", "--output-format", "json", "--force-exclude", *files]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode not in (0, 1):
        raise ReviewError(f"torchperf-lint failed: {result.stderr.strip() or result.stdout.strip()}")
    return json.loads(result.stdout)


def hints() -> dict[str, str]:
    result = subprocess.run([*LINTER, "rules", "--output-format", "json"], capture_output=True, text=True)
    if result.returncode != 0:
        raise ReviewError(f"torchperf-lint rules failed: {result.stderr.strip()}")
    return {rule["code"]: rule["hint"] for rule in json.loads(result.stdout)}


def summarise(files: list[str], findings: list[dict], hint_of: dict[str, str], limit: int) -> dict:
    shown = [
        {
            "file": _relative(item["filename"]),
            "line": item["location"]["row"],
            "column": item["location"]["column"],
            "rule": item["code"],
            "message": item["message"],
            "hint": hint_of.get(item["code"], ""),
        }
        for item in findings[:limit]
    ]
    counts = Counter(item["code"] for item in findings)
    return {
        "files": len(files),
        "findings": len(findings),
        "counts": dict(sorted(counts.items())),
        "shown": shown,
        "truncated": len(findings) > limit,
    }


def _relative(filename: str) -> str:
    try:
        return Path(filename).resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return filename


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Lint a change set and summarise it as JSON.")
    parser.add_argument("paths", nargs="*", help="files to check (default: files changed since --base)")
    parser.add_argument("--base", default="HEAD", help="git revision to diff against (default: HEAD)")
    parser.add_argument("--limit", type=int, default=20, help="findings to list (default: 20)")
    args = parser.parse_args(argv)
    try:
        files = args.paths or changed_files(args.base)
        findings = lint(files) if files else []
        summary = summarise(files, findings, hints(), max(0, args.limit))
    except (ReviewError, OSError, json.JSONDecodeError) as error:
        print(json.dumps({"error": str(error)}))
        return 2
    print(json.dumps(summary, indent=2))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
