"""The ``torchperf-lint`` command: parse arguments, run, print, choose the exit code."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from torchperf_lint import __version__, statistics
from torchperf_lint.cache import DIRECTORY_NAME as CACHE_DIR
from torchperf_lint.cache import clear as clear_cache
from torchperf_lint.config import ConfigError, Settings, find_config, load
from torchperf_lint.diagnostics import Diagnostic
from torchperf_lint.discovery import discover
from torchperf_lint.engine import decode
from torchperf_lint.explain import explain, rules_table
from torchperf_lint.registry import all_rules
from torchperf_lint.reporters import HUMAN_FORMATS, REPORTERS, ReportContext
from torchperf_lint.rewrite import Rewrite, add_noqa, fix_jobs
from torchperf_lint.runner import Job, run
from torchperf_lint.selection import UsageError, enabled_codes
from torchperf_lint.skills import DEFAULT_DESTINATION as DEFAULT_SKILL_DESTINATION
from torchperf_lint.skills import RULES_REFERENCE, drifted, write_rules
from torchperf_lint.skills import install as install_skill
from torchperf_lint.skills import source_folder as skill_source_folder

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
_COMMANDS = {"check", "rule", "rules", "clean", "skill", "handoff"}


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
    check.add_argument("-o", "--output-file", type=Path, help="write the report to this file instead of stdout")
    check.add_argument("--statistics", action="store_true", help="count findings per rule instead of listing them")
    check.add_argument(
        "--fix", action="store_true", help="apply safe fixes (atomically, only if the result parses)"
    )
    check.add_argument("--unsafe-fixes", action="store_true", help="also apply and count fixes marked unsafe")
    check.add_argument("--diff", action="store_true", help="print the fixes as a unified diff; write nothing")
    check.add_argument("--show-fixes", action="store_true", help="list what --fix changed")
    check.add_argument("--exit-non-zero-on-fix", action="store_true", help="exit 1 if anything was fixed")
    check.add_argument("--add-noqa", action="store_true", help="add `# noqa: CODE` for every current finding")
    check.add_argument("--ignore-noqa", action="store_true", help="report findings that `# noqa` would suppress")
    check.add_argument("--no-cache", action="store_true", help="neither read nor write the findings cache")
    check.add_argument("--cache-dir", type=Path, help=f"cache folder (default: <project root>/{CACHE_DIR})")
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
    rules.add_argument("--output-format", choices=["text", "json", "markdown"], default="text")
    skill = commands.add_parser("skill", help="the reviewers' agent skill").add_subparsers(
        dest="action", required=True
    )
    render = skill.add_parser("render", help="re-render references/rules.md from the rule catalog")
    render.add_argument("--check", action="store_true", help="exit 1 if the committed file differs")
    render.add_argument("--dir", type=Path, help="the skill folder (default: the one shipped with the package)")
    install = skill.add_parser("install", help="copy the skill into a project")
    install.add_argument("--dest", type=Path, default=DEFAULT_SKILL_DESTINATION, help="default: .agents/skills")
    install.add_argument("--force", action="store_true", help="overwrite local edits")
    handoff = commands.add_parser("handoff", help="render or check a benchmark handoff report")
    handoff_actions = handoff.add_subparsers(dest="action", required=True)
    handoff_render = handoff_actions.add_parser("render", help="render a report from benchmark results JSON")
    handoff_render.add_argument("results", type=Path)
    handoff_render.add_argument("--notes", type=Path, help="Markdown with one '## Section' per section it adds to")
    handoff_render.add_argument("-o", "--output", type=Path, help="default: stdout")
    handoff_check = handoff_actions.add_parser("check", help="exit 1 listing missing or empty sections")
    handoff_check.add_argument("report", type=Path)
    clean = commands.add_parser("clean", help="delete the findings cache")
    clean.add_argument("--cache-dir", type=Path, help=f"cache folder (default: <project root>/{CACHE_DIR})")
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
        if args.command == "clean":
            return _clean(args)
        if args.command == "skill":
            return _skill(args)
        if args.command == "handoff":
            return _handoff(args)
        return _check(args)
    except (ConfigError, UsageError) as error:
        print(f"torchperf-lint: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except OSError as error:
        print(f"torchperf-lint: error: {error.filename or ''}: {error.strerror or error}", file=sys.stderr)
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


def _skill(args: argparse.Namespace) -> int:
    if args.action == "install":
        target, edits = install_skill(args.dest, force=args.force)
        if edits:
            listed = ", ".join(edits)
            print(
                f"torchperf-lint: {target} has local edits ({listed}); use --force to overwrite", file=sys.stderr
            )
            return EXIT_FINDINGS
        print(f"Installed the skill in {target}", file=sys.stderr)
        return EXIT_CLEAN
    folder = args.dir or skill_source_folder()
    if args.check:
        if drifted(folder):
            print(f"{folder / RULES_REFERENCE} is out of date: run `torchperf-lint skill render`", file=sys.stderr)
            return EXIT_FINDINGS
        return EXIT_CLEAN
    print(f"Wrote {write_rules(folder)}", file=sys.stderr)
    return EXIT_CLEAN


def _handoff(args: argparse.Namespace) -> int:
    """The reference kernels' report tools; they import Jinja2 only, never torch."""
    from torchperf_lint.reference_kernels.handoff import ResultsError, missing_sections, render_handoff

    if args.action == "check":
        problems = missing_sections(args.report.read_text(encoding="utf-8"))
        for problem in problems:
            print(f"{args.report}: {problem}")
        return EXIT_FINDINGS if problems else EXIT_CLEAN
    try:
        results = json.loads(args.results.read_text(encoding="utf-8"))
        report = render_handoff(results, args.notes.read_text(encoding="utf-8") if args.notes else "")
    except (json.JSONDecodeError, ResultsError, KeyError) as error:
        raise UsageError(f"{args.results}: not benchmark results in the documented schema: {error}") from None
    if args.output is None:
        sys.stdout.write(report)
    else:
        args.output.write_text(report, encoding="utf-8")
    return EXIT_CLEAN


def _clean(args: argparse.Namespace) -> int:
    directory = args.cache_dir or load(find_config(Path.cwd()), Path.cwd()).root / CACHE_DIR
    removed = clear_cache(directory)
    print(f"Removed {directory}" if removed else f"No cache at {directory}", file=sys.stderr)
    return EXIT_CLEAN


def _check(args: argparse.Namespace) -> int:
    _refuse_conflicts(args)
    settings = _settings(args)
    enabled = enabled_codes(settings.select, settings.extend_select, settings.ignore, all_rules())
    jobs, missing = _jobs(args, settings)
    cache_dir = None if args.no_cache else (args.cache_dir or settings.root / CACHE_DIR)
    findings = run(jobs, settings, enabled, workers=args.jobs, cache_dir=cache_dir, ignore_noqa=args.ignore_noqa)
    if args.add_noqa:
        return _add_noqa(jobs, findings)
    fixed: list[Diagnostic] = []
    if args.fix or args.diff:
        rewrites = fix_jobs(
            jobs, findings, settings, enabled, unsafe=args.unsafe_fixes, ignore_noqa=args.ignore_noqa
        )
        if args.diff:
            return _print_diffs(rewrites)
        findings, fixed = _apply(rewrites, findings)
        _echo_stdin(jobs, rewrites)
    stdin_fixed = args.fix and any(job.data is not None for job in jobs)
    with _report_stream(args, stdin_fixed) as out:
        _report(args, settings, jobs, findings, fixed, out)
    if missing:
        return EXIT_ERROR
    if fixed and args.exit_non_zero_on_fix:
        return EXIT_FINDINGS
    return EXIT_FINDINGS if findings and not args.exit_zero else EXIT_CLEAN


def _refuse_conflicts(args: argparse.Namespace) -> None:
    if args.add_noqa and (args.fix or args.diff):
        raise UsageError("--add-noqa cannot be combined with --fix or --diff")
    if args.fix and args.diff:
        raise UsageError("--diff shows the fixes instead of applying them; use one of --fix and --diff")


def _jobs(args: argparse.Namespace, settings: Settings) -> tuple[list[Job], bool]:
    """The files to lint (stdin first), and whether an explicitly given path was missing."""
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
    return jobs, any(skip.reason == "no such file or directory" for skip in skipped)


def _add_noqa(jobs: list[Job], findings: list[Diagnostic]) -> int:
    added, skipped = add_noqa(jobs, findings)
    for path in skipped:
        print(f"torchperf-lint: warning: {path}: no directive could be added safely", file=sys.stderr)
    noun = "directive" if added == 1 else "directives"
    print(f"Added {added} noqa {noun}.", file=sys.stderr)
    return EXIT_CLEAN


def _print_diffs(rewrites: list[Rewrite]) -> int:
    changed = [r for r in rewrites if r.after != r.before]
    sys.stdout.write("".join(r.diff() for r in changed))
    count = sum(len(r.applied) for r in changed)
    print(f"Would fix {count} error{'s' if count != 1 else ''}.", file=sys.stderr)
    return EXIT_FINDINGS if changed else EXIT_CLEAN


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
            sys.stdout.write(fixed.get(job.display) or _decoded_or_raw(job.data))


def _decoded_or_raw(data: bytes) -> str:
    try:
        return decode(data)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return data.decode("utf-8", errors="surrogateescape")


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
    settings: Settings,
    jobs: list[Job],
    findings: list[Diagnostic],
    fixed: list[Diagnostic],
    out: TextIO,
) -> None:
    human = args.output_format in HUMAN_FORMATS
    if args.statistics:
        out.write(statistics.render(findings, as_json=not human, unsafe=args.unsafe_fixes))
    else:
        sources = _sources(findings, jobs) if args.output_format == "full" else {}
        out.write(REPORTERS[args.output_format](findings, ReportContext(settings.root, sources)))
    if args.show_fixes and fixed:
        out.write(statistics.fixed_summary(fixed))
    if human and not args.quiet:
        out.write(statistics.summary(findings, fixed, unsafe=args.unsafe_fixes, fixing=args.fix))


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
