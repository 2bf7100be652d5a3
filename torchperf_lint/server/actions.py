"""Code actions: a finding's fix, a ``# noqa`` for it, and every safe fix at once.

Actions are offered without their edits; the edit is computed when the client resolves the one the
user picks (``codeAction/resolve``), or at once for a client that cannot resolve. Computing an edit
means re-parsing the fixed text, as ``--fix`` does before it writes, which is too slow to do for
every action the editor merely lists as the cursor moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

from lsprotocol import types

from torchperf_lint.diagnostics import Diagnostic
from torchperf_lint.fixes import SAFE, is_fixable
from torchperf_lint.lines import split_lines
from torchperf_lint.rewrite import takes_noqa
from torchperf_lint.server import linting
from torchperf_lint.server.diagnostics import SOURCE, finding_range, to_lsp
from torchperf_lint.server.linting import Outcome
from torchperf_lint.server.positions import LineIndex

FIX_ALL = "source.fixAll.torchperf-lint"
KINDS = (types.CodeActionKind.QuickFix, FIX_ALL)
FIX, NOQA, EVERY_SAFE_FIX = "fix", "noqa", "fixAll"


class ActionData(TypedDict):
    """What an offered action carries until it is resolved."""

    uri: str
    version: int
    action: str  # FIX, NOQA or EVERY_SAFE_FIX
    finding: int  # index into the outcome's findings (-1 for EVERY_SAFE_FIX)


def offered(
    outcome: Outcome,
    index: LineIndex,
    wanted: types.Range,
    only: Sequence[str] | None,
    pages: dict[str, str],
) -> list[types.CodeAction]:
    """The actions for the findings that touch ``wanted``, and the fix-everything action, of the
    kinds in ``only`` (all kinds when None)."""
    actions: list[types.CodeAction] = []
    if _wants(only, types.CodeActionKind.QuickFix):
        for number, finding in enumerate(outcome.findings):
            if _touches(finding_range(finding, index), wanted):
                actions += _for_finding(outcome, number, finding, to_lsp(finding, index, pages))
    if _wants(only, FIX_ALL) and any(is_fixable(finding, unsafe=False) for finding in outcome.findings):
        actions.append(
            types.CodeAction(
                title=f"{SOURCE}: Apply every safe fix",
                kind=FIX_ALL,
                data=_data(outcome, EVERY_SAFE_FIX, -1),
            )
        )
    return actions


def _for_finding(
    outcome: Outcome, number: int, finding: Diagnostic, diagnostic: types.Diagnostic
) -> list[types.CodeAction]:
    actions = []
    if finding.fix is not None:
        safe = finding.fix.applicability == SAFE
        actions.append(
            types.CodeAction(
                title=f"{SOURCE} ({finding.code}): {finding.fix.message}" + ("" if safe else " (unsafe fix)"),
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                is_preferred=safe,
                data=_data(outcome, FIX, number),
            )
        )
    if takes_noqa(finding):
        actions.append(
            types.CodeAction(
                title=f"{SOURCE} ({finding.code}): Add `# noqa: {finding.code}` on this line",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                data=_data(outcome, NOQA, number),
            )
        )
    return actions


def new_text(outcome: Outcome, data: ActionData) -> str | None:
    """The buffer after the action (computed by the fix engine), or None when it cannot be applied."""
    if data["action"] == EVERY_SAFE_FIX:
        return linting.fix_all(outcome)
    finding = outcome.findings[data["finding"]]
    return linting.fix(outcome, finding) if data["action"] == FIX else linting.add_noqa(outcome, finding)


def why_not(data: ActionData) -> str:
    """Why :func:`new_text` found no edit for the action."""
    if data["action"] == NOQA:
        return "this line cannot take a `# noqa` comment (it ends inside a string, or a blanket `# noqa` is there)"
    if data["action"] == FIX:
        return "the fix would leave code that does not parse, so it was not applied"
    return "no safe fix could be applied: the fixed code would not parse"


def workspace_edit(outcome: Outcome, index: LineIndex, text: str, versioned: bool) -> types.WorkspaceEdit:
    """One edit turning the buffer into ``text``; tied to the document's version when the client
    accepts that (so it refuses the edit if the buffer has changed since)."""
    snapshot = outcome.snapshot
    edit = replacement(index, text)
    if not versioned:
        return types.WorkspaceEdit(changes={snapshot.uri: [edit]})
    document = types.OptionalVersionedTextDocumentIdentifier(uri=snapshot.uri, version=snapshot.version)
    return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(text_document=document, edits=[edit])])


def replacement(index: LineIndex, text: str) -> types.TextEdit:
    """The smallest run of whole lines whose replacement turns ``index``'s text into ``text``."""
    before, after = split_lines(index.text, keepends=True), split_lines(text, keepends=True)
    head = 0
    while head < min(len(before), len(after)) and before[head] == after[head]:
        head += 1
    tail = 0
    while tail < min(len(before), len(after)) - head and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    changed = types.Range(index.line_start(head), index.line_start(len(before) - tail))
    return types.TextEdit(range=changed, new_text="".join(after[head : len(after) - tail]))


def _data(outcome: Outcome, action: str, finding: int) -> ActionData:
    return {"uri": outcome.snapshot.uri, "version": outcome.snapshot.version, "action": action, "finding": finding}


def _wants(only: Sequence[str] | None, kind: str) -> bool:
    """Whether a request for the kinds ``only`` covers ``kind`` (``source`` covers ``source.fixAll.x``)."""
    return only is None or any(kind == asked or kind.startswith(f"{asked}.") for asked in only)


def _touches(finding: types.Range, wanted: types.Range) -> bool:
    def key(position: types.Position) -> tuple[int, int]:
        return position.line, position.character

    return key(finding.start) <= key(wanted.end) and key(wanted.start) <= key(finding.end)
