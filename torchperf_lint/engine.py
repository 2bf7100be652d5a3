"""Lints one file: decode, parse once, resolve names once, one batched traversal, suppressions."""

from __future__ import annotations

import ast
import hashlib
import io
import re
import threading
import tokenize
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import libcst as cst

from torchperf_lint import newer_syntax, python_versions, suppression
from torchperf_lint.context import FileContext
from torchperf_lint.diagnostics import SYNTAX_ERROR, Diagnostic
from torchperf_lint.dispatch import Dispatcher, has_visitors
from torchperf_lint.fixes import Edit, Fix, PendingFix
from torchperf_lint.index.build import summarize_tree
from torchperf_lint.index.summary import FunctionSummary, ModuleSummary
from torchperf_lint.kernel_map.facts import FileFacts
from torchperf_lint.kernel_map.infer import KernelMap
from torchperf_lint.kernel_map.project import map_settings
from torchperf_lint.registry import all_rules, known_codes
from torchperf_lint.rule import Rule
from torchperf_lint.source import decode
from torchperf_lint.toolkit import traversal
from torchperf_lint.toolkit.scopes import ScopeBuilder, bind_star_imported
from torchperf_lint.workspace import FileSettings

#: A file CPython rejected reaches LibCST only if no statement is longer than this many tokens (an
#: f-string counts as many as it has characters) and no bracket nests deeper than CPython allows in
#: any version. Nothing else bounds its nesting then, and LibCST's parser takes memory quadratic in
#: nesting depth (a chain of 2,000 lambdas takes 0.8 GB) and overflows the C stack at a few thousand
#: levels; at this bound the worst case stays near 200 MB.
_MAX_STATEMENT_TOKENS = 1000
_MAX_BRACKET_DEPTH = 200
_LAYOUT_TOKENS = frozenset({tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER})


class _Run:
    """One file's run: its settings, the name findings carry, and the rules it applies."""

    def __init__(self, file: FileSettings, path: str, ignore_noqa: bool) -> None:
        self.file, self.path, self.ignore_noqa = file, path, ignore_noqa
        self.enabled = file.enabled
        self.rules: tuple[type[Rule], ...] = tuple(
            cls for code, cls in all_rules().items() if code in self.enabled
        )
        self.target_version = file.settings.target_version
        self.max_file_size = file.settings.max_file_size


@dataclass(frozen=True)
class Rejected:
    """CPython's refusal of a file: where, and its message. ``final`` when LibCST must not try the
    file either (CPython found it nested too deeply for LibCST's native parser)."""

    row: int
    column: int
    message: str
    final: bool = False


def lint_bytes(
    data: bytes, file: FileSettings, path: str | None = None, *, ignore_noqa: bool = False
) -> list[Diagnostic]:
    """All findings for one file, reported under ``path`` (by default the file's own path). Never
    raises for bad input: that becomes TPL900. Without kernel facts in ``file`` (one file linted on
    its own), the kernel map is inferred from this file alone."""
    options = _Run(file, path if path is not None else str(file.path), ignore_noqa)
    if len(data) > options.max_file_size:
        return _syntax_finding(options, 1, 1, _too_large(len(data), options.max_file_size))
    try:
        text = decode(data)
    except (SyntaxError, UnicodeDecodeError, LookupError) as error:
        return _syntax_finding(options, 1, 1, f"File could not be decoded: {error}")
    if "\x00" in text:
        return _syntax_finding(options, 1, 1, "File contains a NUL byte; it is not Python source")
    kernel = file.kernel
    checked: ast.Module | Rejected | None = None  # None: the project index parsed these very bytes
    if kernel is None or kernel.parsed_sha256 != hashlib.sha256(data).hexdigest():
        checked = _syntax_tree(text, options)
        if isinstance(checked, Rejected) and checked.final:
            return _syntax_finding(options, checked.row, checked.column, checked.message)
    syntax_tree = checked if isinstance(checked, ast.Module) else None
    if kernel is None and syntax_tree is not None:
        kernel = _own_facts(syntax_tree, text, file)
    parses = not isinstance(checked, Rejected)
    if kernel is not None and parses and not _may_match(text, options, kernel):
        return []
    module = _libcst_tree(text, checked)
    if isinstance(module, Rejected):
        return _syntax_finding(options, module.row, module.column, module.message)
    if kernel is None:  # newer syntax than this Python parses: only what is declared is known
        kernel = _declared_facts(module, text, file)
    try:
        newer = _newer_syntax(module, text, checked, options)
    except RecursionError:
        return _syntax_finding(options, 1, 1, "File is nested too deeply to analyse")
    if isinstance(newer, Rejected):  # not newer syntax: an error on every Python
        return _syntax_finding(options, newer.row, newer.column, newer.message)
    if not parses and not _may_match(text, options, kernel):
        return newer
    try:
        findings = newer + _run_rules(module, text, syntax_tree, options, kernel, reparse=parses)
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


def _declared_facts(module: cst.Module, text: str, file: FileSettings) -> FileFacts:
    """The kernel map of a file CPython cannot parse (syntax newer than the running Python): the
    functions the pragma or the settings declare, read from LibCST's tree."""
    marked = {match.group(1) for match in _PRAGMA_DEF.finditer(text)}
    functions = tuple(
        FunctionSummary(qualname, 0, pragma=qualname.rpartition(".")[2] in marked)
        for qualname in _qualnames(module.body, file.module_name)
    )
    summary = ModuleSummary(file.module_name, functions=functions)
    return KernelMap([summary], map_settings(file.settings)).file_facts(file.module_name)


#: A ``def`` line that carries the pragma (the line a long signature ends on is matched by its header).
_PRAGMA_DEF = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)\b.*?#\s*torchperf:\s*prevalidated\b", re.M)


def _qualnames(body: Sequence[cst.CSTNode], prefix: str) -> Iterator[str]:
    for node in body:
        if isinstance(node, cst.FunctionDef | cst.ClassDef):
            qualname = f"{prefix}.{node.name.value}" if prefix else node.name.value
            if isinstance(node, cst.FunctionDef):
                yield qualname
            inner = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
            yield from _qualnames(inner, qualname)


def _may_match(text: str, options: _Run, kernel: FileFacts) -> bool:
    """Cheap prefilter: a file with none of the active rules' required strings (nor a ``noqa`` to
    check, nor a function the kernel map gives a role, nor an import of a project module that brings
    torch) cannot match; it is only syntax-checked."""
    if kernel.roles or kernel.reaches_torch:
        return True
    if not options.ignore_noqa and suppression.has_directive_for(text):
        return True
    return any(token in text for cls in options.rules for token in cls.requires_text)


def _syntax_tree(text: str, options: _Run) -> ast.Module | Rejected:
    """CPython's parse first (it never executes anything): its messages are the familiar ones, it
    refuses the nesting depths at which LibCST's native parser would crash the process, and its line
    numbers let positions be generated one statement at a time.

    The tree when the running interpreter parses the file, else :class:`Rejected`. A rejected file
    may still be valid for a newer Python; the caller asks LibCST (see :func:`_newer_syntax`).
    """
    try:
        return ast.parse(text, filename=options.path)
    except SyntaxError as error:
        return Rejected(error.lineno or 1, error.offset or 1, _first_line(error))
    except (RecursionError, MemoryError, ValueError):
        return Rejected(1, 1, "File is nested too deeply to parse", final=True)


def _libcst_tree(text: str, checked: ast.Module | Rejected | None) -> cst.Module | Rejected:
    """LibCST's parse, or why there is none: when CPython rejected the file too, CPython's message
    (the familiar one), else LibCST's, which says that Python accepts the file."""
    if isinstance(checked, Rejected) and not _bounded(text):
        return checked
    try:
        with _parser_output_trusted():
            return cst.parse_module(text)
    except cst.ParserSyntaxError as error:
        if isinstance(checked, Rejected):
            return checked
        # Python accepted the file, here or in the project index (LibCST's tokenizer is stricter
        # about some mixes of tabs and spaces): calling it a syntax error would be false
        message = f"LibCST cannot parse this file, though Python can ({_parser_detail(error)}); no rule checked it"
        return Rejected(error.raw_line, error.raw_column + 1, message)
    except RecursionError:
        return Rejected(1, 1, "File is nested too deeply to parse", final=True)


_TRUST = threading.Lock()


@contextmanager
def _parser_output_trusted() -> Iterator[None]:
    """Skip LibCST's per-node checks while its own parser builds a tree.

    Every node runs ``_validate`` from ``__post_init__``; those checks catch hand-built nodes that
    could not print back to valid code, and a tree the parser built from valid source passes them by
    construction. They cost a tenth of the parse. Nodes built anywhere else (fixes) keep their checks:
    the hook is restored as soon as the parse returns, under a lock so threads cannot interleave.
    """
    with _TRUST:
        checks = cst.CSTNode.__post_init__
        cst.CSTNode.__post_init__ = _unchecked  # type: ignore[method-assign]
        try:
            yield
        finally:
            cst.CSTNode.__post_init__ = checks  # type: ignore[method-assign]


def _unchecked(node: cst.CSTNode) -> None:
    """The node check used while the parser builds a tree: nothing to check."""


def _bounded(text: str) -> bool:
    """Whether a file CPython could not parse, and so whose nesting nothing has bounded, is small
    enough in every statement to give LibCST (see ``_MAX_STATEMENT_TOKENS``)."""
    count = depth = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.NEWLINE:
                count = 0
            elif token.type not in _LAYOUT_TOKENS:
                count += len(token.string) if token.type == tokenize.STRING and "{" in token.string else 1
                depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(token.string, 0)
                if count > _MAX_STATEMENT_TOKENS or depth > _MAX_BRACKET_DEPTH:
                    return False
    except (tokenize.TokenError, SyntaxError):
        return False
    return True


def _newer_syntax(
    module: cst.Module, text: str, checked: ast.Module | Rejected | None, options: _Run
) -> list[Diagnostic] | Rejected:
    """TPL900 for each construct newer than the target version; the rejection itself when CPython
    rejected the file and no construct newer than the running Python explains it."""
    parsed = not isinstance(checked, Rejected)
    if parsed and options.target_version >= python_versions.RUNNING:
        return []  # CPython parsed it, so every construct is at most as new as the target
    found = newer_syntax.uses(module, text)
    if isinstance(checked, Rejected) and not any(use.added > python_versions.RUNNING for use in found):
        return checked
    target = options.target_version
    return [
        finding
        for use in found
        if use.added > target
        for finding in _syntax_finding(options, use.row, use.column, use.message(target))
    ]


def _too_large(size: int, limit: int) -> str:
    return (
        f"File not linted: it is {_size(size)}, over the limit of {_size(limit)} (`max-file-size`); "
        "raise the limit or exclude the file"
    )


def _size(count: int) -> str:
    """A byte count as people read it: 512 KiB, 7.9 MiB."""
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale:
            return f"{count / scale:.1f}".removesuffix(".0") + f" {unit}"
    return f"{count} bytes"


def _first_line(error: SyntaxError) -> str:
    """``SyntaxError: <message>`` without CPython's "(file, line N)" suffix."""
    return f"{type(error).__name__}: {error.msg or 'invalid syntax'}"


def _parser_detail(error: cst.ParserSyntaxError) -> str:
    """LibCST's message without its own "parser error: error at R:C:" prefix."""
    detail = re.sub(r"^(parser error: )?(error at \d+:\d+: )?", "", error.message)
    return detail or "invalid syntax"


def _syntax_finding(options: _Run, row: int, column: int, message: str) -> list[Diagnostic]:
    if SYNTAX_ERROR not in options.enabled:
        return []
    return [Diagnostic(options.path, row, column, SYNTAX_ERROR, message, row, column)]


def _run_rules(
    module: cst.Module,
    text: str,
    syntax_tree: ast.Module | None,
    options: _Run,
    kernel: FileFacts,
    *,
    reparse: bool,
) -> list[Diagnostic]:
    builder = ScopeBuilder(module, options.file.module_name, options.file.path.name == "__init__.py")
    traversal.visit(module, builder)
    bind_star_imported(builder, text)
    ctx = FileContext(
        path=options.path,
        module_name=options.file.module_name,
        text=text,
        module=module,
        syntax_tree=syntax_tree,
        reparse=reparse,
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
