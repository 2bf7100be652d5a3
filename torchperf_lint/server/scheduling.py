"""When each document is linted: once per version, on a thread of its own, newest version first.

- A change after a quiet spell (no change to that document for ``delay`` seconds) is linted at once,
  so an isolated edit shows its findings as fast as the engine allows; changes that follow each
  other closer than that are debounced: only the last one is linted, ``delay`` after it.
- A newer version cancels the older one's pending work. A lint already running cannot be stopped
  (LibCST's parser is native code), but its result is dropped instead of published.
- The engine runs on one worker thread, so the event loop keeps reading messages, a newer version
  or a cancelled request, while a large file is being linted, and the engine's configuration
  cache is only ever touched from that thread.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

from pygls.exceptions import JsonRpcContentModified

from torchperf_lint.server.linting import Outcome, Snapshot

logger = logging.getLogger(__name__)

#: Changes closer together than this are typing: lint once, this long after the last of them.
DEBOUNCE_SECONDS = 0.15

T = TypeVar("T")


@dataclass
class _Entry:
    """One document's work: its newest snapshot, the lint that will answer for it, the last result."""

    snapshot: Snapshot | None = None
    result: asyncio.Future[Outcome] | None = None
    task: asyncio.Task[None] | None = None
    debouncing: bool = False  # the task is still waiting out the debounce
    published: Outcome | None = None
    last_change: float = -math.inf

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel()
        if self.result is not None and not self.result.done():
            self.result.cancel()


class Scheduler:
    def __init__(
        self,
        lint: Callable[[Snapshot], Outcome],
        publish: Callable[[Outcome], None],
        delay: float = DEBOUNCE_SECONDS,
    ) -> None:
        self._lint = lint
        self._publish = publish
        self._delay = delay
        self._entries: dict[str, _Entry] = {}
        self._engine = ThreadPoolExecutor(max_workers=1, thread_name_prefix="torchperf-lint-engine")

    def submit(self, snapshot: Snapshot, *, debounce: bool = False) -> asyncio.Future[Outcome]:
        """Lint ``snapshot`` (the document's newest version) and publish the result, unless an even
        newer one arrives first; the future resolves with it. With ``debounce`` (a change as the
        user types), a change that comes soon after the previous one waits until the typing pauses."""
        loop = asyncio.get_running_loop()
        entry = self._entries.setdefault(snapshot.uri, _Entry())
        now = loop.time()
        typing = debounce and now - entry.last_change < self._delay
        if debounce:
            entry.last_change = now
        if entry.published is not None and entry.published.snapshot == snapshot:
            self._publish(entry.published)  # the same version again (a save): no second parse
            done: asyncio.Future[Outcome] = loop.create_future()
            done.set_result(entry.published)
            return done
        on_its_way = entry.result is not None and not entry.result.done() and not entry.debouncing
        if entry.result is not None and on_its_way and entry.snapshot == snapshot:
            return entry.result
        entry.cancel()
        entry.snapshot = snapshot
        entry.result = result = loop.create_future()
        entry.debouncing = typing
        entry.task = loop.create_task(self._run(entry, snapshot, result, self._delay if typing else 0.0))
        return result

    async def outcome(self, snapshot: Snapshot) -> Outcome:
        """The outcome for exactly this version: the one published, the one on its way (sped past
        its debounce, since a request is waiting), or a new lint. A newer version arriving first
        makes the request stale: the client is told its content was modified."""
        entry = self._entries.get(snapshot.uri)
        if entry is not None and entry.published is not None and entry.published.snapshot == snapshot:
            return entry.published
        result = self.submit(snapshot)
        try:
            return await asyncio.shield(result)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if result.cancelled() and not (task is not None and task.cancelling()):
                raise JsonRpcContentModified(
                    f"{snapshot.uri} changed; version {snapshot.version} is stale"
                ) from None
            raise

    async def run(self, work: Callable[..., T], *args: object) -> T:
        """Run other engine work (a fix, a ``noqa``) on the engine's thread."""
        return await asyncio.get_running_loop().run_in_executor(self._engine, work, *args)

    def forget(self, uri: str) -> None:
        """The document was closed: drop its pending work and its results."""
        entry = self._entries.pop(uri, None)
        if entry is not None:
            entry.cancel()

    def restart(self, reset: Callable[[], None]) -> None:
        """Start over after a configuration change: pending lints are cancelled (they read the old
        configuration), no published result is reused, and ``reset`` runs on the engine's thread
        before any lint submitted after this call."""
        for entry in self._entries.values():
            entry.cancel()
            entry.published = entry.snapshot = None
        self._engine.submit(reset)

    def close(self) -> None:
        """Shut down: cancel every pending lint; a running one finishes on its own."""
        for entry in self._entries.values():
            entry.cancel()
        self._entries.clear()
        self._engine.shutdown(wait=False, cancel_futures=True)

    async def _run(self, entry: _Entry, snapshot: Snapshot, result: asyncio.Future[Outcome], wait: float) -> None:
        if wait:
            await asyncio.sleep(wait)
        entry.debouncing = False
        try:
            outcome = await self.run(self._lint, snapshot)
        except Exception as error:  # a bug in the server, never in a rule (the engine catches those)
            logger.exception("linting %s failed", snapshot.uri)
            outcome = Outcome(
                snapshot, problem=f"internal error ({type(error).__name__}: {error}); please report it"
            )
        if not result.done():
            result.set_result(outcome)
        if entry.snapshot is snapshot:
            entry.published = outcome
            self._publish(outcome)
