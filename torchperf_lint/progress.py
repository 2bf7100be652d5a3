"""A "files done out of the total" line on a terminal, for runs long enough to make people wonder.

It appears only once a run has lasted ``DELAY`` seconds, is redrawn in place at most ten times a
second, and is erased before the report is written. The CLI shows it only when stderr is a terminal,
outside CI, without ``-q`` and with a format meant for people.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TextIO

#: Seconds a run must last before the line appears.
DELAY = 2.0
_REDRAW = 0.1


class Progress:
    def __init__(self, stream: TextIO, total: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.total = total
        self.clock = clock
        self.started = clock()
        self.drawn_at: float | None = None

    def update(self, done: int) -> None:
        now = self.clock()
        if now - self.started < DELAY or (self.drawn_at is not None and now - self.drawn_at < _REDRAW):
            return
        self.drawn_at = now
        self.stream.write(f"\r\x1b[KLinting: {done}/{self.total} files")
        self.stream.flush()

    def close(self) -> None:
        """Erase the line, if it was ever drawn."""
        if self.drawn_at is not None:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def wanted(stream: TextIO, *, quiet: bool, human_format: bool, environ: Mapping[str, str]) -> bool:
    """Whether a run should show progress on ``stream``."""
    return stream.isatty() and not quiet and human_format and not environ.get("CI")
