"""``# noqa`` directives: which findings they silence and which of them silenced nothing."""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

from torchperf_lint.diagnostics import Diagnostic
from torchperf_lint.fixes import SAFE, Edit, Fix
from torchperf_lint.lines import split_lines

_NOQA = re.compile(r"#\s*noqa(?::\s?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
UNUSED_NOQA = "TPL901"
#: The prefix of this linter's codes; other codes in a directive belong to other tools.
OWN_PREFIX = "TPL"


@dataclass(frozen=True)
class Directive:
    row: int
    column: int  # 1-based
    end_column: int
    codes: tuple[str, ...] | None  # None for a bare, blanket directive
    line: str = ""  # the whole line, for the fix that removes unused codes


def find_directives(text: str, only_prefix: str | None = None) -> dict[int, Directive]:
    """Directives by row, read from real comments only (not from strings).

    Telling comments from strings takes Python's tokenizer, which is slow. With ``only_prefix``, a
    file whose every ``noqa`` lists only other tools' codes is not tokenized: such directives can
    neither silence this linter's findings nor be reported as unused by it.
    """
    if "noqa" not in text.lower() or (only_prefix is not None and not has_directive_for(text, only_prefix)):
        return {}
    found: dict[int, Directive] = {}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return {}
    lines = split_lines(text)
    for token in tokens:
        if token.type != tokenize.COMMENT:
            continue
        match = _NOQA.search(token.string)
        if match is None:
            continue
        row, col = token.start
        codes = match.group("codes")
        parsed = tuple(c.upper() for c in re.split(r"[,\s]+", codes) if c) if codes else None
        start = col + match.start()
        found[row] = Directive(row, start + 1, col + match.end() + 1, parsed, lines[row - 1])
    return found


def has_directive_for(text: str, prefix: str = OWN_PREFIX) -> bool:
    """Whether ``text`` holds a ``noqa`` that is blanket or names a code starting with ``prefix`` (a
    cheap over-approximation: it does not tell comments from strings)."""
    for match in _NOQA.finditer(text):
        codes = match.group("codes")
        if codes is None or any(code.upper().startswith(prefix) for code in re.split(r"[,\s]+", codes)):
            return True
    return False


def apply(
    path: str,
    findings: list[Diagnostic],
    directives: dict[int, Directive],
    enabled: frozenset[str],
    known: frozenset[str],
    own_prefix: str = OWN_PREFIX,
) -> list[Diagnostic]:
    """Drop suppressed findings and add TPL901 for directives that silenced nothing; ``known`` are
    the registered codes (a code of ours that is not one of them is "unknown")."""
    kept: list[Diagnostic] = []
    used: dict[int, set[str]] = {}
    for finding in findings:
        directive = directives.get(finding.row)
        if directive is not None and (directive.codes is None or finding.code in directive.codes):
            used.setdefault(finding.row, set()).add(finding.code)
        else:
            kept.append(finding)
    if UNUSED_NOQA not in enabled:
        return kept
    for directive in directives.values():
        if directive.codes is None:
            continue  # a blanket directive may be another linter's; only our own codes can be unused
        verdicts = _verdicts(directive.codes, used.get(directive.row, set()), enabled, known, own_prefix)
        keep = [code for code, verdict in zip(directive.codes, verdicts, strict=True) if verdict is None]
        if len(keep) < len(directive.codes):
            kept.append(
                Diagnostic(
                    path,
                    directive.row,
                    directive.column,
                    UNUSED_NOQA,
                    _unused_message(directive.codes, verdicts),
                    directive.row,
                    directive.end_column,
                    _removal(directive, keep),
                )
            )
    return kept


_VERDICTS = ("unused", "non-enabled", "unknown", "duplicated")


def _verdicts(
    codes: tuple[str, ...], used: set[str], enabled: frozenset[str], known: frozenset[str], own_prefix: str
) -> list[str | None]:
    """Why each code of a directive suppresses nothing (one of ``_VERDICTS``), or None for a code
    that did, or that belongs to another tool."""
    verdicts: list[str | None] = []
    seen: set[str] = set()
    for code in codes:
        if not code.startswith(own_prefix):
            verdicts.append(None)
        elif code in seen:
            verdicts.append("duplicated")
        elif code in used:
            verdicts.append(None)
        else:
            verdicts.append("unused" if code in enabled else "non-enabled" if code in known else "unknown")
        seen.add(code)
    return verdicts


def _unused_message(codes: tuple[str, ...], verdicts: list[str | None]) -> str:
    parts = []
    for label in _VERDICTS:
        listed = [f"`{code}`" for code, verdict in zip(codes, verdicts, strict=True) if verdict == label]
        if listed:
            parts.append(f"{label}: {', '.join(listed)}")
    return f"Unused `noqa` directive ({'; '.join(parts)})"


def _removal(directive: Directive, keep: list[str]) -> Fix:
    """Ruff's RUF100 fix: the directive keeps the codes that still suppress something and other
    tools' codes; with none left it goes, with the blanks that separated it from the code (or from
    the comment that follows it)."""
    row, line = directive.row, directive.line
    start, end = directive.column - 1, directive.end_column - 1
    if keep:
        edit = Edit(row, directive.column, row, directive.end_column, f"# noqa: {', '.join(keep)}")
    elif line[end:].strip():
        following = line[end:]
        edit = Edit(row, directive.column, row, end + len(following) - len(following.lstrip()) + 1, "")
    else:
        edit = Edit(row, len(line[:start].rstrip()) + 1, row, len(line) + 1, "")
    return Fix(SAFE, "Remove unused `noqa` directive", (edit,))


def add_directives(text: str, codes_by_row: dict[int, set[str]]) -> tuple[str, int]:
    """``text`` with ``# noqa: CODES`` on each row, merged into a directive already there.

    Other comments are kept (the directive goes after them). A row whose end lies inside a
    multi-line string cannot take a comment and is skipped, as is a row a blanket ``# noqa`` covers.
    """
    lines = split_lines(text, keepends=True)
    existing = find_directives(text)
    endable = _rows_that_can_end_in_a_comment(text)
    added = 0
    for row, codes in sorted(codes_by_row.items()):
        directive = existing.get(row)
        if row not in endable or row > len(lines) or (directive is not None and directive.codes is None):
            continue
        line = lines[row - 1]
        body = line.rstrip("\r\n")
        ending = line[len(body) :]
        if directive is not None:
            merged = (*directive.codes, *sorted(set(codes) - set(directive.codes)))
            body = f"{body[: directive.column - 1]}# noqa: {', '.join(merged)}{body[directive.end_column - 1 :]}"
        else:
            body = f"{body}  # noqa: {', '.join(sorted(codes))}"
        lines[row - 1] = body + ending
        added += 1
    return "".join(lines), added


def _rows_that_can_end_in_a_comment(text: str) -> set[int]:
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return set()
    ends = {tokenize.NEWLINE, tokenize.NL, tokenize.COMMENT}
    return {token.start[0] for token in tokens if token.type in ends}
