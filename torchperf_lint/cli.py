"""The ``torchperf-lint`` command line: the parser and the dispatch to one module per command."""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from pathlib import Path

from torchperf_lint import __version__, python_versions
from torchperf_lint.cache import DIRECTORY_NAME as CACHE_DIR
from torchperf_lint.config import ConfigError
from torchperf_lint.exit_codes import ExitCode
from torchperf_lint.registry import RegistryError
from torchperf_lint.reporters import REPORTERS
from torchperf_lint.selection import UsageError

_COMMANDS = {"check", "rule", "rules", "map", "clean", "skill", "handoff", "server", "probe"}
#: Options of the program itself, accepted before the subcommand (as Ruff accepts `ruff -v check`).
_GLOBAL_FLAGS = {"-v", "--verbose"}
_TOP_LEVEL_ONLY = {"-h", "--help", "-V", "--version"}


def _codes(value: str) -> list[str]:
    return [part for part in value.split(",") if part.strip()]


def _positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, not {value!r}")
    return number


_VERSIONS = [python_versions.spelled(version) for version in python_versions.SUPPORTED]


def _target_version(value: str) -> python_versions.Version:
    version = python_versions.parse(value)
    if version is None:
        raise argparse.ArgumentTypeError(f"must be one of {', '.join(_VERSIONS)}, not {value!r}")
    return version


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    # SUPPRESS keeps a subcommand's default from overwriting a --verbose given before it.
    common.add_argument(
        "-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help="show internal errors' tracebacks"
    )
    parser = argparse.ArgumentParser(
        prog="torchperf-lint",
        description="Lint eager CPU PyTorch code against its performance contract.",
        parents=[common],
    )
    parser.add_argument("-V", "--version", action="version", version=f"torchperf-lint {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", parents=[common], help="lint files and directories (the default)")
    check.add_argument("paths", nargs="*", type=Path, help="files or directories; '-' reads stdin")
    check.add_argument(
        "--select", type=_codes, action="extend", help="codes or prefixes to enable (replaces config)"
    )
    check.add_argument(
        "--extend-select", type=_codes, action="extend", help="codes or prefixes to enable in addition"
    )
    check.add_argument("--ignore", type=_codes, action="extend", help="codes or prefixes to disable")
    check.add_argument(
        "--config",
        action="append",
        metavar="FILE | KEY=VALUE",
        help="a pyproject.toml (or bare TOML table) to use, or a TOML `KEY = VALUE` that overrides one key",
    )
    check.add_argument(
        "--target-version",
        type=_target_version,
        metavar="VERSION",
        help=f"the oldest Python the code runs on: {', '.join(_VERSIONS)} (default: requires-python, else py311)",
    )
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
    check.add_argument(
        "--respect-gitignore",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="skip files git ignores (overrides the `respect-gitignore` setting)",
    )
    check.add_argument("--extend-exclude", type=_codes, action="extend", help="more globs to exclude")
    check.add_argument("--jobs", type=_positive, help="worker processes (default: one per core)")
    check.add_argument(
        "--baseline", metavar="REV", help="report only findings not already present at git revision REV"
    )
    rule = commands.add_parser("rule", parents=[common], help="explain a rule, by code or name, or every rule")
    rule.add_argument("rule", nargs="?", metavar="CODE|NAME", help="TPL003 or device-route")
    rule.add_argument("--all", action="store_true", help="every rule's page")
    rule.add_argument("--output-format", choices=["text", "json"], default="text")
    rules = commands.add_parser("rules", parents=[common], help="list every rule")
    rules.add_argument("--output-format", choices=["text", "json", "markdown"], default="text")
    skill = commands.add_parser("skill", parents=[common], help="the reviewers' agent skill").add_subparsers(
        dest="action", required=True
    )
    render = skill.add_parser(
        "render", parents=[common], help="re-render references/rules.md from the rule catalog"
    )
    render.add_argument("--check", action="store_true", help="exit 1 if the committed file differs")
    render.add_argument("--dir", type=Path, help="the skill folder (default: the one shipped with the package)")
    install = skill.add_parser("install", parents=[common], help="copy the skill into a project")
    install.add_argument("--dest", type=Path, help="default: .agents/skills")
    install.add_argument("--force", action="store_true", help="overwrite local edits")
    skill.add_parser("path", parents=[common], help="print the folder of the skill shipped with the package")
    handoff = commands.add_parser("handoff", parents=[common], help="render or check a benchmark handoff report")
    handoff_actions = handoff.add_subparsers(dest="action", required=True)
    handoff_render = handoff_actions.add_parser(
        "render", parents=[common], help="render a report from benchmark results JSON"
    )
    handoff_render.add_argument("results", type=Path)
    handoff_render.add_argument("--notes", type=Path, help="Markdown with one '## Section' per section it adds to")
    handoff_render.add_argument("-o", "--output", type=Path, help="default: stdout")
    handoff_check = handoff_actions.add_parser(
        "check",
        parents=[common],
        help="verify a report against its results, notes and the kernel source (exit 1 on any failure)",
    )
    handoff_check.add_argument("report", type=Path)
    handoff_check.add_argument("--results", type=Path, help="default: bench-full.json next to REPORT")
    handoff_check.add_argument("--notes", type=Path, help="default: notes.md next to REPORT")
    handoff_check.add_argument("--source", type=Path, help="kernel package folder (default: the installed one)")
    server = commands.add_parser(
        "server", parents=[common], help="the language server for editors, over stdio (the `server` extra)"
    )
    server.add_argument(
        "--stdio", action="store_true", help="accepted for clients that pass it; stdio is the default"
    )
    kernel_map = commands.add_parser(
        "map", parents=[common], help="show which functions are prevalidated and which are primitives, and why"
    )
    kernel_map.add_argument("paths", nargs="*", type=Path, help="files or directories (default: .)")
    kernel_map.add_argument("--output-format", choices=["text", "json"], default="text")
    kernel_map.add_argument(
        "--config",
        action="append",
        metavar="FILE | KEY=VALUE",
        help="as check takes it: a pyproject.toml (or bare TOML table), or a `KEY = VALUE` override",
    )
    kernel_map.add_argument("--no-cache", action="store_true", help="neither read nor write the project index")
    probe = commands.add_parser(
        "probe",
        parents=[common],
        help="run one call of a kernel under the runtime probe (the `probe` extra); exit 1 on a contract breach",
    )
    probe.add_argument("target", metavar="MODULE:FUNCTION", help="the function to call, such as pkg.mod:warp")
    probe.add_argument(
        "arguments",
        nargs="*",
        metavar="ARG",
        help="tensor:SHAPE[,dtype=..,order=..,step=..], array:SHAPE[,...,readonly], eye:RxC, coords:DxHxW, "
        "NAME=ARG for a keyword, or a Python literal",
    )
    probe.add_argument("--output-format", choices=["text", "json"], default="text")
    probe.add_argument("--warmup", type=int, default=1, help="uncounted calls first (default 1)")
    probe.add_argument("--threads", type=_positive, help="torch's thread count for the call")
    probe.add_argument("--base", type=Path, help="a JSON report of the same call to diff against")
    clean = commands.add_parser("clean", parents=[common], help="delete the findings cache")
    clean.add_argument("--cache-dir", type=Path, help=f"cache folder (default: <project root>/{CACHE_DIR})")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:  # as Ruff does: the help, and the exit code of a usage error
        build_parser().print_help(sys.stderr)
        return ExitCode.ERROR
    try:
        args = build_parser().parse_args(_with_command(argv))
    except SystemExit as exit_:
        return ExitCode.ERROR if exit_.code not in (0, None) else ExitCode.CLEAN
    try:
        return _dispatch(args)
    except (ConfigError, RegistryError, UsageError) as error:
        print(f"torchperf-lint: error: {error}", file=sys.stderr)
        return ExitCode.ERROR
    except BrokenPipeError:  # the reader stopped early (`| head`): as Ruff does, stop quietly
        _silence_stdout()
        return ExitCode.ERROR
    except OSError as error:
        print(f"torchperf-lint: error: {error.filename or ''}: {error.strerror or error}", file=sys.stderr)
        return ExitCode.ERROR
    except KeyboardInterrupt:
        return ExitCode.ERROR
    except Exception as error:  # a bug: exit 2, never 1, which CI and pre-commit read as "findings"
        return _internal_error(error, verbose=getattr(args, "verbose", False))


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's final flush of a closed pipe raises nothing."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _with_command(argv: list[str]) -> list[str]:
    """``argv`` with ``check``, the default command, after the global flags when it names no command."""
    position = 0
    while position < len(argv) and argv[position] in _GLOBAL_FLAGS:
        position += 1
    if position < len(argv) and argv[position] in _COMMANDS | _TOP_LEVEL_ONLY:
        return argv
    return [*argv[:position], "check", *argv[position:]]


def _internal_error(error: Exception, *, verbose: bool) -> ExitCode:
    """One line naming the error; the traceback only with ``--verbose``."""
    what = f"internal error ({type(error).__name__}: {error})"
    if verbose:
        traceback.print_exc()
        print(f"torchperf-lint: error: {what}", file=sys.stderr)
    else:
        print(
            f"torchperf-lint: error: {what}; run with --verbose for the traceback and please report it",
            file=sys.stderr,
        )
    return ExitCode.ERROR


def _dispatch(args: argparse.Namespace) -> int:
    """Run the chosen command; each command module is imported only when it runs."""
    if args.command in ("rule", "rules"):
        from torchperf_lint.commands import rules

        return rules.run_rule(args) if args.command == "rule" else rules.run_rules(args)
    if args.command == "clean":
        from torchperf_lint.commands import clean

        return clean.run(args)
    if args.command == "skill":
        from torchperf_lint.commands import skill

        return skill.run(args)
    if args.command == "server":
        from torchperf_lint.commands import server

        return server.run(args)
    if args.command == "map":
        from torchperf_lint.commands import map as kernel_map

        return kernel_map.run(args)
    if args.command == "probe":
        from torchperf_lint.commands import probe

        return probe.run(args)
    if args.command == "handoff":
        from torchperf_lint.commands import handoff

        return handoff.run(args)
    from torchperf_lint.commands import check

    return check.run(args)
