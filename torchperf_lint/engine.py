"""Lints one file: decode, parse once, resolve names once, one batched traversal, suppressions."""

from __future__ import annotations

import ast
import hashlib
import re

import libcst as cst

from torchperf_lint import suppression
from torchperf_lint.context import FileContext
from torchperf_lint.diagnostics import SYNTAX_ERROR, Diagnostic
from torchperf_lint.dispatch import Dispatcher, has_visitors
from torchperf_lint.fixes import Edit, Fix, PendingFix
from torchperf_lint.index.build import summarize_tree
from torchperf_lint.kernel_map.facts import FileFacts
from torchperf_lint.kernel_map.infer import KernelMap
from torchperf_lint.kernel_map.project import map_settings
from torchperf_lint.registry import all_rules, known_codes
from torchperf_lint.rule import Rule
from torchperf_lint.source import decode
from torchperf_lint.toolkit import traversal
from torchperf_lint.toolkit.scopes import ScopeBuilder
from torchperf_lint.workspace import FileSettings


class _Run:
    """One file's run: its settings, the name findings carry, and the rules it applies."""

    def __init__(self, file: FileSettings, path: str, ignore_noqa: bool) -> None:
        self.file, self.path, self.ignore_noqa = file, path, ignore_noqa
        self.enabled = file.enabled
        self.rules: tuple[type[Rule], ...] = tuple(
            cls for code, cls in all_rules().items() if code in file.enabled
        )


def lint_bytes(
    data: bytes, file: FileSettings, path: str | None = None, *, ignore_noqa: bool = False
) -> list[Diagnostic]:
    """All findings for one file, reported under ``path`` (by default the file's own path). Never
    raises for bad input: that becomes TPL900. Without kernel facts in ``file`` (one file linted on
    its own), the kernel map is inferred from this file alone."""
    options = _Run(file, path if path is not None else str(file.path), ignore_noqa)
    try:
        text = decode(data)
    except (SyntaxError, UnicodeDecodeError, LookupError) as error:
        return _syntax_finding(options, 1, 1, f"File could not be decoded: {error}")
    if "\x00" in text:
        return _syntax_finding(options, 1, 1, "File contains a NUL byte; it is not Python source")
    kernel = file.kernel
    if kernel is not None and kernel.parsed_sha256 == hashlib.sha256(data).hexdigest():
        syntax_tree = None  # the project index parsed these very bytes; positions parse them if asked
    else:
        syntax_tree = _syntax_tree(text, options)
        if isinstance(syntax_tree, list):
            return syntax_tree
        kernel = kernel if kernel is not None else _own_facts(syntax_tree, text, file)
    if not _may_match(text, options, kernel):
        return []
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as error:
        return _syntax_finding(options, error.raw_line, error.raw_column + 1, _parser_message(error))
    except RecursionError:
        return _syntax_finding(options, 1, 1, "File is nested too deeply to parse")
    try:
        findings = _run_rules(module, text, syntax_tree, options, kernel)
    except RecursionError:
        return _syntax_finding(options, 1, 1, "File is nested too deeply to analyse")
    except Exception as error:  # a bug in one rule costs this file's findings, never the whole run
        message = f"Internal error while linting this file ({type(error).__name__}: {error}); please report it"
        return _syntax_finding(options, 1, 1, message)
    if options.ignore_noqa:
        return sorted(findings)
    directives = suppression.find_directives(text, only_prefix=suppression.OWN_PREFIX)
    return sorted(suppression.apply(options.path, findings, directives, options.enabled, known_codes()))


def _own_facts(syntax_tree: ast.Module, text: str, file: FileSettings) -> FileFacts:
    """The kernel map of a file linted on its own (no project index was consulted)."""
    summary = summarize_tree(syntax_tree, file.module_name, file.path.name == "__init__.py", text)
    return KernelMap([summary], map_settings(file.settings)).file_facts(file.module_name)


def _may_match(text: str, options: _Run, kernel: FileFacts) -> bool:
    """Cheap prefilter: a file with none of the active rules' required strings (nor a ``noqa`` to
    check, nor a function the kernel map gives a role) cannot match; it is only syntax-checked."""
    if kernel.roles:
        return True
    if not options.ignore_noqa and suppression.has_directive_for(text):
        return True
    return any(token in text for cls in options.rules for token in cls.requires_text)


def _syntax_tree(text: str, options: _Run) -> ast.Module | list[Diagnostic]:
    """CPython's parse first (it never executes anything): its messages are the familiar ones, it
    refuses the nesting depths at which LibCST's native parser would crash the process, and its line
    numbers let positions be generated one statement at a time. A list means the file is invalid."""
    try:
        return ast.parse(text, filename=options.path)
    except SyntaxError as error:
        return _syntax_finding(options, error.lineno or 1, error.offset or 1, _first_line(error))
    except (RecursionError, MemoryError, ValueError):
        return _syntax_finding(options, 1, 1, "File is nested too deeply to parse")


def _first_line(error: SyntaxError) -> str:
    """``SyntaxError: <message>`` without CPython's "(file, line N)" suffix."""
    return f"{type(error).__name__}: {error.msg or 'invalid syntax'}"


def _parser_message(error: cst.ParserSyntaxError) -> str:
    """LibCST's message without its own "parser error: error at R:C:" prefix."""
    detail = re.sub(r"^(parser error: )?(error at \d+:\d+: )?", "", error.message)
    return f"SyntaxError: {detail or 'invalid syntax'}"


def _syntax_finding(options: _Run, row: int, column: int, message: str) -> list[Diagnostic]:
    if SYNTAX_ERROR not in options.enabled:
        return []
    return [Diagnostic(options.path, row, column, SYNTAX_ERROR, message, row, column)]


def _run_rules(
    module: cst.Module, text: str, syntax_tree: ast.Module | None, options: _Run, kernel: FileFacts
) -> list[Diagnostic]:
    builder = ScopeBuilder(module)
    traversal.visit(module, builder)
    ctx = FileContext(
        path=options.path,
        module_name=options.file.module_name,
        text=text,
        module=module,
        syntax_tree=syntax_tree,
        scopes=builder.scopes,
        kernel=kernel,
    )
    active = [cls(ctx) for cls in options.rules if has_visitors(cls)]
    if active:
        Dispatcher(ctx, active).run(module)
    results = []
    for pending in ctx.findings:
        where = ctx.position(pending.node, pending.path)
        results.append(
            Diagnostic(
                options.path,
                where.start.line,
                where.start.column + 1,
                pending.code,
                pending.message,
                where.end.line,
                where.end.column + 1,
                _resolve_fix(ctx, pending.fix, pending.path),
            )
        )
    return results


def _resolve_fix(ctx: FileContext, pending: PendingFix | None, path: tuple[cst.CSTNode, ...]) -> Fix | None:
    """Node edits -> 1-based text ranges; whole-line edits span from column 1 to the next line."""
    if pending is None:
        return None
    edits = []
    for edit in pending.edits:
        where = ctx.position(edit.node, path)
        if edit.whole_lines:
            edits.append(Edit(where.start.line, 1, where.end.line + 1, 1, edit.content))
        else:
            edits.append(
                Edit(where.start.line, where.start.column + 1, where.end.line, where.end.column + 1, edit.content)
            )
    return Fix(pending.applicability, pending.message, tuple(edits))
