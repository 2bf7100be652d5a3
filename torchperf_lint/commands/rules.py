"""``torchperf-lint rule CODE|NAME|--all`` (rule pages) and ``torchperf-lint rules`` (the table)."""

from __future__ import annotations

import argparse
import sys

from torchperf_lint.exit_codes import ExitCode
from torchperf_lint.explain import explain, explain_all, rules_table
from torchperf_lint.selection import UsageError


def run_rule(args: argparse.Namespace) -> ExitCode:
    if (args.rule is None) == (not args.all):
        raise UsageError("rule takes a rule code or name, or --all")
    sys.stdout.write(explain_all(args.output_format) if args.all else explain(args.rule, args.output_format))
    return ExitCode.CLEAN


def run_rules(args: argparse.Namespace) -> ExitCode:
    sys.stdout.write(rules_table(args.output_format))
    return ExitCode.CLEAN
