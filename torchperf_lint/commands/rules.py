"""``torchperf-lint rule CODE`` (one rule's page) and ``torchperf-lint rules`` (the table)."""

from __future__ import annotations

import argparse
import sys

from torchperf_lint.exit_codes import ExitCode
from torchperf_lint.explain import explain, rules_table


def run_rule(args: argparse.Namespace) -> ExitCode:
    sys.stdout.write(explain(args.code, args.output_format))
    return ExitCode.CLEAN


def run_rules(args: argparse.Namespace) -> ExitCode:
    sys.stdout.write(rules_table(args.output_format))
    return ExitCode.CLEAN
