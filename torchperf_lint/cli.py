"""The ``torchperf-lint`` command: parse arguments, run, print, choose the exit code."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from torchperf_lint import __version__
from torchperf_lint.config import ConfigError, Settings, find_config, load
from torchperf_lint.diagnostics import Diagnostic
from torchperf_lint.discovery import discover
from torchperf_lint.engine import decode
from torchperf_lint.explain import explain, rules_table
from torchperf_lint.registry import all_rules
from torchperf_lint.reporters import REPORTERS
from torchperf_lint.runner import Job, run
from torchperf_lint.selection import UsageError, enabled_codes

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
_COMMANDS = {"check", "rule", "rules"}


def _codes(value: str) -> list[str]:
    return [part for part in value.split(",") if part.strip()]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="torchperf-lint",
        description="Lint eager CPU PyTorch code against its performance contract.",
    )
    parser.add_argument("--version", action="version", version=f"torchperf-lint {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", help="lint files and directories (the default)")
    check.add_argument("paths", nargs="*", type=Path, help="files or directories; '-' reads stdin")
    check.add_argument("--select", type=_codes, help="codes or prefixes to enable (replaces config)")
    check.add_argument("--extend-select", type=_codes, help="codes or prefixes to enable in addition")
    check.add_argument("--ignore", type=_codes, help="codes or prefixes to disable")
    check.add_argument("--config", type=Path, help="a pyproject.toml (or bare TOML table) to use")
    check.add_argument("--output-format", choices=sorted(REPORTERS), default="text")
    check.add_argument("--statistics", action="store_true", help="count findings per rule")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even with findings")
    check.add_argument("-q", "--quiet", action="store_true", help="print findings only")
    check.add_argument("--stdin-filename", help="the path stdin stands for (config, messages)")
    check.add_argument("--force-exclude", action="store_true", help="exclude even paths given explicitly")
    check.add_argument("--extend-exclude", type=_codes, help="more globs to exclude")
    check.add_argument("--jobs", type=int, help="worker processes (default: one per core)")
    rule = commands.add_parser("rule", help="explain one rule")
    rule.add_argument("code")
    rule.add_argument("--output-format", choices=["text", "json"], default="text")
    rules = commands.add_parser("rules", help="list every rule")
    rules.add_argument("--output-format", choices=["text", "json"], default="text")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] not in _COMMANDS and argv[0] not in {"-h", "--help", "--version"}:
        argv.insert(0, "check")
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exit_:
        return EXIT_ERROR if exit_.code not in (0, None) else EXIT_CLEAN
    try:
        if args.command == "rule":
            return _print(explain(args.code, args.output_format))
        if args.command == "rules":
            return _print(rules_table(args.output_format))
        return _check(args)
    except (ConfigError, UsageError) as error:
        print(f"torchperf-lint: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_ERROR


def _print(text: str) -> int:
    sys.stdout.write(text)
    return EXIT_CLEAN


def _settings(args: argparse.Namespace) -> Settings:
    if args.config is not None:
        if not args.config.is_file():
            raise UsageError(f"config file {args.config} does not exist")
        settings = load(args.config, Path.cwd())
    else:
        anchor = Path(args.stdin_filename) if args.stdin_filename else (args.paths or [Path(".")])[0]
        anchor = anchor if str(anchor) != "-" else Path(".")
        settings = load(find_config(anchor if anchor.exists() else Path.cwd()), Path.cwd())
    return settings.with_overrides(
        select=tuple(args.select) if args.select is not None else None,
        extend_select=settings.extend_select + tuple(args.extend_select or ()),
        ignore=settings.ignore + tuple(args.ignore or ()),
        extend_exclude=settings.extend_exclude + tuple(args.extend_exclude or ()),
    )


def _check(args: argparse.Namespace) -> int:
    settings = _settings(args)
    enabled = enabled_codes(settings.select, settings.extend_select, settings.ignore, all_rules())
    paths = args.paths or [Path(".")]
    jobs: list[Job] = []
    if any(str(p) == "-" for p in paths):
        display = args.stdin_filename or "-"
        jobs.append(Job(Path(display), display, sys.stdin.buffer.read()))
        paths = [p for p in paths if str(p) != "-"]
    files, skipped = discover(paths, settings, force_exclude=args.force_exclude) if paths else ([], [])
    for skip in skipped:
        print(f"torchperf-lint: warning: {skip.path}: {skip.reason}", file=sys.stderr)
    jobs += [Job(path, str(path)) for path in files]
    findings = run(jobs, settings, enabled, workers=args.jobs)
    sources = _sources(findings, jobs) if args.output_format == "full" else {}
    sys.stdout.write(REPORTERS[args.output_format](findings, sources))
    if args.statistics:
        sys.stdout.write(_statistics(findings))
    if args.output_format in {"text", "concise", "full"} and not args.quiet:
        sys.stdout.write(_summary(findings))
    if any(skip.reason == "no such file or directory" for skip in skipped):
        return EXIT_ERROR
    return EXIT_FINDINGS if findings and not args.exit_zero else EXIT_CLEAN


def _sources(findings: list[Diagnostic], jobs: list[Job]) -> dict[str, str]:
    wanted = {f.path for f in findings}
    sources = {}
    for job in jobs:
        if job.display in wanted:
            try:
                sources[job.display] = decode(job.data if job.data is not None else job.path.read_bytes())
            except (OSError, SyntaxError, UnicodeDecodeError, LookupError):
                continue
    return sources


def _statistics(findings: list[Diagnostic]) -> str:
    counts = Counter(f.code for f in findings)
    rules = all_rules()
    return "".join(
        f"{count:>5}\t{code}\t{rules[code].name if code in rules else ''}\n"
        for code, count in counts.most_common()
    )


def _summary(findings: list[Diagnostic]) -> str:
    if not findings:
        return "All checks passed!\n"
    noun = "error" if len(findings) == 1 else "errors"
    return f"Found {len(findings)} {noun}.\n"
