"""``--heap``: run the benchmark with glibc's allocator pinned to a cold or a warm heap.

glibc serves a large allocation with a fresh ``mmap`` (every page faults in on first touch) until a
freed mapping of that size raises its dynamic mmap threshold; from then on the same size comes from
the heap, already resident. Which of the two a candidate meets depends on what ran before it, and moved
ratios by up to a fifth between otherwise identical runs. ``cold`` fixes the threshold at 128 KiB, so
every large buffer is a fresh mapping; ``warm`` turns mappings off and never trims the heap, so freed
buffers are reused resident; ``default`` leaves glibc alone. The tunables are read when a process
starts, so a mode other than the environment's own re-runs the benchmark in a child process.
"""

from __future__ import annotations

import os
import subprocess
import sys

MODES = ("default", "cold", "warm")
#: ``GLIBC_TUNABLES`` for each mode; None keeps the environment's own setting.
TUNABLES = {
    "default": None,
    "cold": "glibc.malloc.mmap_threshold=131072",
    "warm": "glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=1099511627776",
}
#: Set in the child process, so it runs the benchmark instead of starting another child.
CHILD_MARK = "TORCHPERF_BENCH_HEAP"


def needs_child(mode: str) -> bool:
    """Whether this process must re-run itself for ``mode``: tunables cannot change after start-up."""
    return TUNABLES[mode] is not None and os.environ.get(CHILD_MARK) != mode


def run_child(mode: str, module: str, argv: list[str]) -> int:
    """``python -m module argv`` with the mode's tunables; its exit status."""
    environment = {**os.environ, "GLIBC_TUNABLES": TUNABLES[mode], CHILD_MARK: mode}
    return subprocess.run([sys.executable, "-m", module, *argv], env=environment, check=False).returncode


def record(mode: str) -> dict:
    """What the results say about the heap: the mode and the tunables the process ran with."""
    return {"mode": mode, "glibc_tunables": os.environ.get("GLIBC_TUNABLES")}
