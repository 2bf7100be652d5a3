"""``torchperf-lint skill render|install|path``: the reviewers' agent skill."""

from __future__ import annotations

import argparse
import sys

from torchperf_lint.exit_codes import ExitCode
from torchperf_lint.skills import (
    DEFAULT_DESTINATION,
    RULES_REFERENCE,
    drifted,
    install,
    source_folder,
    write_rules,
)


def run(args: argparse.Namespace) -> ExitCode:
    if args.action == "install":
        return _install(args)
    if args.action == "path":
        print(source_folder())  # for SKILL_DIR: the skill's scripts run from any repository by this path
        return ExitCode.CLEAN
    folder = args.dir or source_folder()
    if args.check:
        if drifted(folder):
            print(f"{folder / RULES_REFERENCE} is out of date: run `torchperf-lint skill render`", file=sys.stderr)
            return ExitCode.FINDINGS
        print(f"{folder / RULES_REFERENCE} is up to date", file=sys.stderr)
        return ExitCode.CLEAN
    print(f"Wrote {write_rules(folder)}", file=sys.stderr)
    return ExitCode.CLEAN


def _install(args: argparse.Namespace) -> ExitCode:
    target, edits = install(args.dest or DEFAULT_DESTINATION, force=args.force)
    if edits:
        listed = ", ".join(edits)
        print(f"torchperf-lint: {target} has local edits ({listed}); use --force to overwrite", file=sys.stderr)
        return ExitCode.FINDINGS
    print(f"Installed the skill in {target}", file=sys.stderr)
    return ExitCode.CLEAN
