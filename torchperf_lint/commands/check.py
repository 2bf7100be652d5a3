"""``torchperf-lint check``: lint, optionally fix or annotate, and report."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from torchperf_lint import progress, statistics
from torchperf_lint.config import Settings
from torchperf_lint.diagnostics import Diagnostic
from torchperf_lint.discovery import discover
from torchperf_lint.exit_codes import ExitCode
from torchperf_lint.kernel_map.project import attach, facts_of_bytes, with_facts
from torchperf_lint.reporters import HUMAN_FORMATS, REPORTERS, STATISTICS_FORMATS, ReportContext
from torchperf_lint.runner import Job, Workers
from torchperf_lint.runner import run as run_jobs
from torchperf_lint.selection import UsageError
from torchperf_lint.source import decode, decode_or_raw
from torchperf_lint.workspace import Overrides, config_values, forget, project_for, settings_for

if TYPE_CHECKING:
    from torchperf_lint.rewrite import Rewrite


def run(args: argparse.Namespace) -> ExitCode:
    _refuse_conflicts(args)
    forget()  # each run reads the configuration as it is now
    overrides = overrides_from(args)
    jobs, missing = _jobs(args, overrides)
    with Workers(args.jobs) as workers, _progress(args, len(jobs)) as on_file_done:
        jobs = attach(jobs, use_cache=not args.no_cache, mapper=workers.map)
        findings = run_jobs(
            jobs,
            workers,
            use_cache=not args.no_cache,
            ignore_noqa=args.ignore_noqa,
            progress=on_file_done,
        )
    baseline = None
    if args.baseline is not None:
        new = _without_baseline(args, jobs, findings)
        baseline, findings = (args.baseline, len(findings) - len(new)), new
    if args.add_noqa:
        return _add_noqa(jobs, findings)
    fixed: list[Diagnostic] = []
    if args.fix or args.diff:
        from torchperf_lint.rewrite import fix_jobs  # LibCST: only when something may be rewritten

        rewrites = fix_jobs(jobs, findings, unsafe=args.unsafe_fixes, ignore_noqa=args.ignore_noqa)
        if args.diff:
            return _print_diffs(rewrites)
        findings, fixed = _apply(rewrites, findings)
        _echo_stdin(jobs, rewrites)
    stdin_fixed = args.fix and any(job.data is not None for job in jobs)
    with _report_stream(args, stdin_fixed) as out:
        root = project_for(Path.cwd(), overrides).settings.root
        _report(args, root, jobs, findings, fixed, missing, baseline, out)
    if missing:
        return ExitCode.ERROR
    if fixed and args.exit_non_zero_on_fix:
        return ExitCode.FINDINGS
    return ExitCode.FINDINGS if findings and not args.exit_zero else ExitCode.CLEAN


def overrides_from(args: argparse.Namespace) -> Overrides:
    """The flags that override every project's configuration."""
    config, snippets = config_values(args.config or ())
    return Overrides(
        config=config,
        snippets=snippets,
        target_version=args.target_version,
        select=tuple(args.select) if args.select is not None else None,
        extend_select=tuple(args.extend_select or ()),
        ignore=tuple(args.ignore or ()),
        extend_exclude=tuple(args.extend_exclude or ()),
        cache_dir=args.cache_dir,
        respect_gitignore=args.respect_gitignore,
    )


def _without_baseline(args: argparse.Namespace, jobs: list[Job], findings: list[Diagnostic]) -> list[Diagnostic]:
    """The findings that the ``--baseline`` revision's version of each file does not have."""
    from torchperf_lint import baseline  # git and LibCST: loaded only in baseline mode
    from torchperf_lint.engine import lint_bytes

    def lint_base(job: Job, data: bytes) -> list[Diagnostic]:
        base = with_facts(job, facts_of_bytes(job, data))
        return lint_bytes(data, base.settings, job.display, ignore_noqa=args.ignore_noqa)

    try:
        return baseline.only_new(findings, jobs, args.baseline, lint_base)
    except baseline.BaselineError as error:
        raise UsageError(str(error)) from None


def _refuse_conflicts(args: argparse.Namespace) -> None:
    if args.baseline is not None and (args.fix or args.diff or args.add_noqa):
        raise UsageError("--baseline filters the report; it cannot be combined with --fix, --diff or --add-noqa")
    if args.baseline is not None and "-" in map(str, args.paths) and not args.stdin_filename:
        raise UsageError("--baseline with stdin needs --stdin-filename to find the file's base version")
    if args.statistics and args.output_format not in STATISTICS_FORMATS:
        usable = "text, concise, full or json"
        raise UsageError(f"--statistics cannot be written as {args.output_format}; use --output-format {usable}")
    if args.add_noqa and (args.fix or args.diff):
        raise UsageError("--add-noqa cannot be combined with --fix or --diff")
    if args.fix and args.diff:
        raise UsageError("--diff shows the fixes instead of applying them; use one of --fix and --diff")


def _jobs(args: argparse.Namespace, overrides: Overrides) -> tuple[list[Job], bool]:
    """The files to lint (stdin first), and whether an explicitly given path was missing.
    ``--stdin-filename`` with no path reads standard input, as in Ruff."""
    paths = args.paths or [Path("-" if args.stdin_filename else ".")]
    jobs: list[Job] = []
    if any(str(p) == "-" for p in paths):
        display = args.stdin_filename or "-"
        jobs.append(Job(Path(display), display, settings_for(Path(display), overrides), sys.stdin.buffer.read()))
        paths = [p for p in paths if str(p) != "-"]

    def settings_of(path: Path) -> Settings:
        return project_for(path, overrides).settings

    files, skipped = discover(paths, settings_of, force_exclude=args.force_exclude) if paths else ([], [])
    for skip in skipped:
        level = "error" if skip.missing else "warning"
        print(f"torchperf-lint: {level}: {skip.path}: {skip.reason}", file=sys.stderr)
    missing = any(skip.missing for skip in skipped)
    if paths and not files and not missing:
        print("torchperf-lint: warning: No Python files found under the given path(s)", file=sys.stderr)
    jobs += [Job(path, str(path), settings_for(path, overrides)) for path in files]
    return jobs, missing


def _add_noqa(jobs: list[Job], findings: list[Diagnostic]) -> ExitCode:
    from torchperf_lint.rewrite import add_noqa

    added, skipped = add_noqa(jobs, findings)
    for path in skipped:
        print(f"torchperf-lint: warning: {path}: no directive could be added safely", file=sys.stderr)
    noun = "directive" if added == 1 else "directives"
    print(f"Added {added} noqa {noun}.", file=sys.stderr)
    return ExitCode.CLEAN


def _print_diffs(rewrites: list[Rewrite]) -> ExitCode:
    changed = [r for r in rewrites if r.after != r.before]
    sys.stdout.write("".join(r.diff() for r in changed))
    count = sum(len(r.applied) for r in changed)
    print(f"Would fix {count} error{'s' if count != 1 else ''}.", file=sys.stderr)
    return ExitCode.FINDINGS if changed else ExitCode.CLEAN


def _apply(rewrites: list[Rewrite], findings: list[Diagnostic]) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """Write each rewrite; the run's findings with fixed files' findings replaced, and what was fixed."""
    fixed_paths = {r.job.display for r in rewrites}
    remaining = [f for f in findings if f.path not in fixed_paths]
    fixed: list[Diagnostic] = []
    for rewrite in rewrites:
        rewrite.write()
        remaining += rewrite.remaining
        fixed += rewrite.applied
    return sorted(remaining), fixed


def _echo_stdin(jobs: list[Job], rewrites: list[Rewrite]) -> None:
    """With ``--fix``, standard input always comes back on stdout: fixed, or unchanged if nothing was."""
    fixed = {r.job.display: r.after for r in rewrites if r.job.data is not None}
    for job in jobs:
        if job.data is not None:
            sys.stdout.write(fixed.get(job.display) or decode_or_raw(job.data))


@contextmanager
def _progress(args: argparse.Namespace, total: int) -> Iterator[Callable[[int], None] | None]:
    """A progress line on stderr for long runs at a terminal, erased before the report."""
    human = args.output_format in HUMAN_FORMATS and not args.statistics
    if not progress.wanted(sys.stderr, quiet=args.quiet, human_format=human, environ=os.environ):
        yield None
        return
    line = progress.Progress(sys.stderr, total)
    try:
        yield line.update
    finally:
        line.close()


@contextmanager
def _report_stream(args: argparse.Namespace, stdin_fixed: bool) -> Iterator[TextIO]:
    """Where the report goes: ``-o`` FILE, stderr when stdout carries fixed stdin, else stdout."""
    if args.output_file is not None:
        with args.output_file.open("w", encoding="utf-8") as stream:
            yield stream
    else:
        yield sys.stderr if stdin_fixed else sys.stdout


def _report(
    args: argparse.Namespace,
    root: Path,
    jobs: list[Job],
    findings: list[Diagnostic],
    fixed: list[Diagnostic],
    missing: bool,
    baseline: tuple[str, int] | None,
    out: TextIO,
) -> None:
    """The findings in the chosen format; for people, a closing summary, which never claims
    success when a path given could not be found, and says how many findings ``--baseline`` hid."""
    human = args.output_format in HUMAN_FORMATS
    if args.statistics:
        out.write(statistics.render(findings, as_json=args.output_format == "json", unsafe=args.unsafe_fixes))
    else:
        sources = _sources(findings, jobs) if args.output_format == "full" else {}
        out.write(REPORTERS[args.output_format](findings, ReportContext(root, sources)))
    if args.show_fixes and fixed:
        out.write(statistics.fixed_summary(fixed))
    if human and not args.quiet and not (missing and not findings and not fixed):
        unsafe, fixing = args.unsafe_fixes, args.fix
        out.write(statistics.summary(findings, fixed, unsafe=unsafe, fixing=fixing, baseline=baseline))


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
