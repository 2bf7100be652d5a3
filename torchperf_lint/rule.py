"""The base class a rule subclasses, and the example type its tests are made of."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import libcst as cst

from torchperf_lint.fixes import PendingFix

if TYPE_CHECKING:
    from torchperf_lint.context import FileContext


@dataclass(frozen=True)
class Invalid:
    """Source that must be flagged, with the 1-based (row, column) of every finding, and the source
    after ``--fix --unsafe-fixes`` when the rule offers a fix for it."""

    source: str
    expected: tuple[tuple[int, int], ...]
    fixed: str | None = None


class Rule:
    """A rule: metadata, examples, and ``visit_<Node>``/``leave_<Node>`` methods.

    The engine creates one instance per file and calls the visitor methods during its single
    traversal; a rule reports through :meth:`report`. Rules with no visitor methods document
    findings the engine emits itself (TPL9xx).
    """

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    #: One line telling the author what to do instead (review summaries quote it).
    hint: ClassVar[str]
    message: ClassVar[str]
    why: ClassVar[str]
    example: ClassVar[str] = ""
    use_instead: ClassVar[str] = ""
    notes: ClassVar[str] = ""
    #: The configuration settings that change what the rule flags, if any.
    options: ClassVar[str] = ""
    valid: ClassVar[tuple[str, ...]] = ()
    invalid: ClassVar[tuple[Invalid, ...]] = ()
    #: A file containing none of these strings cannot match, so the engine skips the rule's work there.
    requires_text: ClassVar[tuple[str, ...]] = ("torch",)
    #: "safe" or "unsafe" when some findings carry a fix, None when none do.
    fix: ClassVar[str | None] = None
    #: Why the fix keeps results identical (or what it may change), or why there is no fix.
    fix_safety: ClassVar[str]

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx

    def report(self, node: cst.CSTNode, fix: PendingFix | None = None, **fields: str) -> None:
        self.ctx.report(self.code, node, self.message.format(**fields), fix)
