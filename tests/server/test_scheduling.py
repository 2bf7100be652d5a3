"""When the scheduler lints: at once after a pause, once after a burst of changes, never for a
version that a newer one has replaced."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcContentModified

from torchperf_lint.server.linting import Outcome, Snapshot
from torchperf_lint.server.scheduling import Scheduler

pytestmark = pytest.mark.asyncio
LONG = 30.0  # a debounce no test may wait out: anything that waits for it fails by timing out


def snapshot(version: int, uri: str = "file:///k.py") -> Snapshot:
    return Snapshot(uri, version, f"x = {version}\n", Path("/k.py"), Path("/"))


class Recorder:
    """A stand-in engine that records what it was asked to lint and what was published."""

    def __init__(self) -> None:
        self.linted: list[int] = []
        self.published: list[int] = []
        self.gate = threading.Event()
        self.gate.set()

    def lint(self, snapshot: Snapshot) -> Outcome:
        self.gate.wait(LONG)
        self.linted.append(snapshot.version)
        return Outcome(snapshot)

    def publish(self, outcome: Outcome) -> None:
        self.published.append(outcome.snapshot.version)


async def test_a_change_after_a_pause_is_linted_at_once_without_waiting_out_the_debounce():
    recorder = Recorder()
    scheduler = Scheduler(recorder.lint, recorder.publish, delay=LONG)
    outcome = await asyncio.wait_for(scheduler.submit(snapshot(1), debounce=True), 10)
    assert (outcome.snapshot.version, recorder.published) == (1, [1])
    scheduler.close()


async def test_a_burst_of_changes_is_linted_once_for_its_last_version():
    recorder = Recorder()
    scheduler = Scheduler(recorder.lint, recorder.publish, delay=0.2)
    scheduler.submit(snapshot(1), debounce=True)
    scheduler.submit(snapshot(2), debounce=True)  # within the debounce of the first: typing
    last = scheduler.submit(snapshot(3), debounce=True)
    await asyncio.wait_for(last, 10)
    assert (recorder.linted, recorder.published) == ([3], [3])  # 1 was cancelled before it started
    scheduler.close()


async def test_typing_waits_for_a_pause_before_linting():
    recorder = Recorder()
    scheduler = Scheduler(recorder.lint, recorder.publish, delay=LONG)
    scheduler.submit(snapshot(1), debounce=True)
    typing = scheduler.submit(snapshot(2), debounce=True)
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(asyncio.shield(typing), 0.5)
    assert recorder.published == []
    scheduler.close()


async def test_a_request_speeds_its_version_past_the_debounce():
    recorder = Recorder()
    scheduler = Scheduler(recorder.lint, recorder.publish, delay=LONG)
    scheduler.submit(snapshot(1), debounce=True)
    scheduler.submit(snapshot(2), debounce=True)  # would wait LONG seconds
    outcome = await asyncio.wait_for(scheduler.outcome(snapshot(2)), 10)
    assert outcome.snapshot.version == 2
    assert await scheduler.outcome(snapshot(2)) is outcome  # one lint per version: the same result
    assert recorder.linted.count(2) == 1
    scheduler.close()


async def test_a_lint_overtaken_by_a_newer_version_is_not_published_and_its_waiters_are_told():
    recorder = Recorder()
    recorder.gate.clear()  # version 1 stays in the engine until the gate opens
    scheduler = Scheduler(recorder.lint, recorder.publish, delay=LONG)
    waiting = asyncio.ensure_future(scheduler.outcome(snapshot(1)))
    await asyncio.sleep(0.05)
    newer = scheduler.submit(snapshot(2))
    recorder.gate.set()
    await asyncio.wait_for(newer, 10)
    with pytest.raises(JsonRpcContentModified):
        await waiting
    assert (recorder.linted, recorder.published) == ([1, 2], [2])
    scheduler.close()


async def test_the_same_version_again_is_published_again_without_a_second_lint():
    recorder = Recorder()
    scheduler = Scheduler(recorder.lint, recorder.publish, delay=LONG)
    await scheduler.submit(snapshot(1))
    await scheduler.submit(snapshot(1))  # a save
    assert (recorder.linted, recorder.published) == ([1], [1, 1])
    scheduler.restart(lambda: recorder.linted.append(0))  # the configuration changed
    await scheduler.submit(snapshot(1))
    assert (recorder.linted, recorder.published) == ([1, 0, 1], [1, 1, 1])
    scheduler.close()
