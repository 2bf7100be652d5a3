"""``# noqa`` directives: which findings they silence and which of them silenced nothing."""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

from torchperf_lint.diagnostics import Diagnostic
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
        found[row] = Directive(row, start + 1, col + match.end() + 1, parsed)
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
        message = _unused_message(directive, used.get(directive.row, set()), enabled, known, own_prefix)
        if message is not None:
            kept.append(
                Diagnostic(
                    path,
                    directive.row,
                    directive.column,
                    UNUSED_NOQA,
                    message,
                    directive.row,
                    directive.end_column,
                )
            )
    return kept


def _unused_message(
    directive: Directive, used: set[str], enabled: frozenset[str], known: frozenset[str], own_prefix: str
) -> str | None:
    if directive.codes is None:
        return None  # a blanket directive may be another linter's; only our own codes can be unused
    unused, disabled, unknown, duplicated, seen = [], [], [], [], set()
    for code in directive.codes:
        if not code.startswith(own_prefix):
            continue  # another tool's code
        if code in seen:
            duplicated.append(code)
            continue
        seen.add(code)
        if code in used:
            continue
        (unused if code in enabled else disabled if code in known else unknown).append(code)
    parts = [
        f"{label}: {', '.join(f'`{c}`' for c in codes)}"
        for label, codes in (
            ("unused", unused),
            ("non-enabled", disabled),
            ("unknown", unknown),
            ("duplicated", duplicated),
        )
        if codes
    ]
    return f"Unused `noqa` directive ({'; '.join(parts)})" if parts else None


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
