"""What the engine says about one version of a document, and the text its fixes would leave.

Every call here goes through the same functions as the command line: ``settings_for`` for the
document's path, ``--force-exclude``'s test, the kernel map's facts, ``lint_bytes``, and the fix
engine of ``--fix`` and ``--add-noqa``. The server calls them from one thread only, since the
configuration cache they share is not guarded by a lock.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from torchperf_lint import workspace
from torchperf_lint.autofix import fix_one
from torchperf_lint.config import ConfigError
from torchperf_lint.diagnostics import Diagnostic
from torchperf_lint.discovery import force_excluded
from torchperf_lint.engine import lint_bytes
from torchperf_lint.kernel_map.project import attach
from torchperf_lint.rewrite import fix_jobs, with_noqa
from torchperf_lint.runner import Job
from torchperf_lint.selection import UsageError
from torchperf_lint.source import encoding_of

_BOM = "\ufeff"


@dataclass(frozen=True)
class Snapshot:
    """One version of a document, and where it is linted from."""

    uri: str
    version: int
    text: str  # as the editor holds it
    path: Path  # the file it stands for (an untitled buffer: a file of its name in ``folder``)
    folder: Path  # the workspace folder that holds it: the command line's current directory

    @property
    def source(self) -> str:
        """The text the engine sees: a leading byte-order mark is not part of the source."""
        return self.text.removeprefix(_BOM)

    def restore(self, source: str) -> str:
        """``source`` (a fixed version of :attr:`source`) as buffer text again."""
        return _BOM + source if self.text.startswith(_BOM) else source


@dataclass(frozen=True)
class Outcome:
    """A snapshot's findings; ``job`` is None when it was not linted, and ``problem`` says why when
    that is an error (a broken configuration) rather than an exclusion. ``reloaded``: a
    ``pyproject.toml`` had changed on disk, so every configuration was read again first."""

    snapshot: Snapshot
    findings: tuple[Diagnostic, ...] = ()
    job: Job | None = None
    problem: str | None = None
    reloaded: bool = False


def lint(snapshot: Snapshot) -> Outcome:
    """The findings the command line would report for this buffer saved at its path. A changed
    ``pyproject.toml`` is noticed here even when the editor reports no file changes."""
    reloaded = workspace.configuration_changed()
    if reloaded:
        workspace.forget()
    return replace(_lint(snapshot), reloaded=reloaded)


def _lint(snapshot: Snapshot) -> Outcome:
    try:
        settings = workspace.settings_for(snapshot.path, cwd=snapshot.folder)
    except (ConfigError, UsageError) as error:
        return Outcome(snapshot, problem=str(error))
    if force_excluded(snapshot.path, settings.settings):
        return Outcome(snapshot)
    data = _saved_bytes(snapshot.source)
    (job,) = attach([Job(snapshot.path, str(snapshot.path), settings, data)], use_cache=True)
    return Outcome(snapshot, tuple(lint_bytes(data, job.settings, job.display)), job)


def reload() -> None:
    """Read every ``pyproject.toml`` again on the next lint."""
    workspace.forget()


def fix_all(outcome: Outcome) -> str | None:
    """The buffer after ``--fix`` (every safe fix, re-linted until stable), or None if unchanged."""
    if outcome.job is None:
        return None
    rewrites = fix_jobs([outcome.job], list(outcome.findings), unsafe=False, ignore_noqa=False)
    changed = [rewrite.after for rewrite in rewrites if rewrite.after != rewrite.before]
    return outcome.snapshot.restore(changed[0]) if changed else None


def fix(outcome: Outcome, finding: Diagnostic) -> str | None:
    """The buffer with this finding's fix alone applied, or None when it cannot be."""
    fixed = fix_one(outcome.snapshot.source, finding)
    return None if fixed is None else outcome.snapshot.restore(fixed)


def add_noqa(outcome: Outcome, finding: Diagnostic) -> str | None:
    """The buffer with ``# noqa: CODE`` for this finding on its line, or None when the line cannot
    take one (it ends inside a string, or a blanket ``# noqa`` is already there)."""
    annotated = with_noqa(outcome.snapshot.source, {finding.row: {finding.code}})
    return None if annotated is None else outcome.snapshot.restore(annotated[0])


def _saved_bytes(source: str) -> bytes:
    """The bytes the buffer would be saved as: in the encoding its coding cookie declares (PEP 263),
    UTF-8 without one. A cookie naming no known codec is left for the engine to report."""
    data = source.encode("utf-8", errors="surrogateescape")
    try:
        encoding = encoding_of(data)
        return data if encoding in ("utf-8", "utf-8-sig") else source.encode(encoding)
    except (SyntaxError, LookupError, UnicodeEncodeError):
        return data
