"""Counts for people and machines: ``--statistics``, the closing summary line, ``--show-fixes``."""

from __future__ import annotations

import json
from collections import Counter

from torchperf_lint.diagnostics import Diagnostic
from torchperf_lint.fixes import is_fixable
from torchperf_lint.registry import catalog


def render(findings: list[Diagnostic], *, as_json: bool, unsafe: bool) -> str:
    """Findings per rule, most frequent first and then by code, as a table or a JSON list."""
    rules = catalog()
    counts = Counter(f.code for f in findings)
    fixable = {f.code for f in findings if is_fixable(f, unsafe)}
    rows = [
        {"code": code, "name": rules[code].name if code in rules else "", "count": n, "fixable": code in fixable}
        for code, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]
    if as_json:
        return json.dumps(rows, indent=2) + "\n"
    width = max((len(str(row["count"])) for row in rows), default=1)
    return "".join(
        f"{row['count']:>{width}}\t{row['code']}\t{'[*] ' if row['fixable'] else ''}{row['name']}\n"
        for row in rows
    )


def summary(
    findings: list[Diagnostic],
    fixed: list[Diagnostic],
    *,
    unsafe: bool,
    fixing: bool,
    baseline: tuple[str, int] | None = None,
) -> str:
    """The closing line(s): totals, what was fixed, what ``--fix`` could still do, and with
    ``baseline`` (the revision, and how many findings it already had) what that mode hid."""
    hid = ""
    if baseline is not None:
        revision, count = baseline
        counted, verb = ("1 finding", "is") if count == 1 else (f"{count} findings", "are")
        hid = f"{counted} that {revision} already had {verb} not shown (--baseline).\n"
    if not findings and not fixed:
        return "All checks passed!\n" + hid
    total = len(findings) + len(fixed)
    noun = "error" if total == 1 else "errors"
    line = f"Found {total} {noun}" + (f" ({len(fixed)} fixed, {len(findings)} remaining)." if fixed else ".")
    lines = [line]
    if not fixing:
        safe = sum(1 for f in findings if is_fixable(f, unsafe))
        hidden = sum(1 for f in findings if f.fix is not None and not is_fixable(f, unsafe))
        if safe:
            lines.append(f"[*] {safe} fixable with the `--fix` option.")
        if hidden:
            fixes = "fix" if hidden == 1 else "fixes"
            lines.append(f"{hidden} hidden {fixes} can be enabled with the `--unsafe-fixes` option.")
    return "".join(text + "\n" for text in lines) + hid


def fixed_summary(fixed: list[Diagnostic]) -> str:
    """``--show-fixes``: what was fixed, per file and rule."""
    rules = catalog()
    lines = [f"Fixed {len(fixed)} error{'s' if len(fixed) != 1 else ''}:"]
    for path in sorted({f.path for f in fixed}):
        lines.append(f"- {path}:")
        for code, n in sorted(Counter(f.code for f in fixed if f.path == path).items()):
            lines.append(f"    {n} × {code} ({rules[code].name if code in rules else code})")
    return "".join(text + "\n" for text in lines)
