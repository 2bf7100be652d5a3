"""``torchperf-lint probe MODULE:FUNCTION [ARG...]``: one call of a kernel under the runtime probe.

The probe needs torch (the ``probe`` extra), so it is imported only here, when the command runs.
Exit 0 when the call keeps the contract, 1 when the probe finds a breach, 2 when the function cannot
be imported, an argument cannot be built, or the call raises.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable

from torchperf_lint.exit_codes import ExitCode
from torchperf_lint.selection import UsageError


def run(args: argparse.Namespace) -> ExitCode:
    probe = _probe_package()
    from torchperf_lint.probe.inputs import SpecError, call_arguments

    function = _resolve(args.target)
    try:
        positional, keywords = call_arguments(args.arguments)
    except SpecError as error:
        raise UsageError(f"cannot build argument {error}") from None
    base = _read_base(args.base, probe.ProbeReport) if args.base else None
    if args.threads is not None:
        import torch

        torch.set_num_threads(args.threads)
    try:
        report = probe.probe_call(function, tuple(positional), keywords, warmup=args.warmup)
    except Exception as error:  # the probed code's own failure, reported as one line
        raise UsageError(f"{args.target} raised {type(error).__name__}: {error}") from None
    if base is not None and _same_call(base, report):
        raise UsageError(
            f"the base report probed the same function in the same file, {report.defined_in}, with the same "
            "arguments: put the base tree first on the import path (PYTHONPATH) when probing the base"
        )
    change = probe.diff(base, report) if base is not None else None
    if args.output_format == "json":
        data = report.to_dict()
        if change is not None:
            data["diff"] = list(change.lines)
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    else:
        sys.stdout.write(report.text())
        if change is not None:
            sys.stdout.write(
                f"against {args.base}:\n" + "".join(f"  {line}\n" for line in change.lines or ["no change"])
            )
    return ExitCode.FINDINGS if report.breaches else ExitCode.CLEAN


def _same_call(base, head) -> bool:
    """Whether two reports are of one function, from one file, on equal arguments: a base-against-head
    diff of that compares the head with itself. (Two sides of a threshold differ in an argument.)"""

    def call(report) -> tuple:
        return report.function, report.defined_in, report.to_dict()["inputs"], report.options

    return bool(head.defined_in) and call(base) == call(head)


def _probe_package():
    try:
        import torchperf_lint.probe as probe

        probe.probe_call  # noqa: B018 - imports torch now, so a missing extra is a usage error here
    except ModuleNotFoundError as missing:
        raise UsageError(str(missing)) from None
    return probe


def _resolve(target: str) -> Callable:
    module_name, _, attribute = target.partition(":")
    if not module_name or not attribute:
        raise UsageError(f"the function to probe is MODULE:FUNCTION, got {target!r}")
    try:
        value = importlib.import_module(module_name)
    except ImportError as error:
        raise UsageError(f"cannot import {module_name}: {error}") from None
    for part in attribute.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            raise UsageError(f"{module_name} has no attribute {attribute!r}") from None
    if not callable(value):
        raise UsageError(f"{target} is not callable")
    return value


def _read_base(path, report_type):
    try:
        return report_type.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (json.JSONDecodeError, KeyError, TypeError) as error:
        raise UsageError(f"{path}: not a probe report in JSON ({error})") from None
