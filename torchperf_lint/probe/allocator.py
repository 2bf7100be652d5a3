"""Every allocation and free of torch's CPU allocator during a call, from ``torch.profiler``.

The dispatch mode sees the buffers operations return; an operation's own scratch buffers (the
``(D, H, W, 4)`` base grid inside ``affine_grid``, a reduction's partial sums) are allocated below
it. The profiler's memory events come from the allocator itself, so their sum is every byte torch
allocated, and their running total gives the exact peak.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from torch.profiler import ProfilerActivity, profile

#: The profiler's name for allocator events.
_MEMORY = "[memory]"


@dataclass
class AllocatorLog:
    """Bytes allocated (frees not subtracted) and the highest live total above the start."""

    allocated: int = 0
    peak: int = 0


@contextmanager
def allocator_log() -> Iterator[AllocatorLog]:
    log = AllocatorLog()
    profiler = profile(activities=[ProfilerActivity.CPU], profile_memory=True)
    with _quiet_stderr():
        profiler.__enter__()
    try:
        yield log
    finally:
        with _quiet_stderr():
            profiler.__exit__(None, None, None)
    events = [e for e in profiler.profiler.kineto_results.events() if e.name() == _MEMORY]
    live = 0
    for event in sorted(events, key=lambda e: e.start_ns()):
        if event.device_type().name != "CPU":
            continue
        live += event.nbytes()
        log.allocated += max(0, event.nbytes())
        log.peak = max(log.peak, live)


@contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Silence the profiler's start and stop lines, which its C++ side writes straight to fd 2."""
    sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(devnull)
        os.close(saved)
