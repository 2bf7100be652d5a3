"""Timing and peak-memory measurement of one call, and the agreement check run before timing."""

from __future__ import annotations

import ctypes
import gc
import re
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")


@dataclass(frozen=True)
class Timing:
    median_ms: float
    min_ms: float
    max_ms: float
    samples: int
    #: Median over rounds of this candidate's time divided by the reference candidate's time in the
    #: same round: a ratio from pairs taken seconds apart, so slow drift of the machine cancels out.
    paired_ratio: float


def balanced_orders(count: int) -> list[list[int]]:
    """Orders of ``count`` candidates in which each one directly follows every other equally often.

    A Williams design: the first order interleaves from both ends (0, 1, n-1, 2, n-2, ...), the others
    shift it by one; an odd count needs the reversed orders as well. So no candidate always runs right
    after the same one, whose freed buffers (a warm heap, or pages just handed back) it would inherit.
    """
    first, low, high = [0], 1, count - 1
    while low <= high:
        first.append(low)
        low += 1
        if low <= high:
            first.append(high)
            high -= 1
    orders = [[(index + shift) % count for index in first] for shift in range(count)]
    return orders if count % 2 == 0 else orders + [order[::-1] for order in orders]


def time_interleaved(
    calls: dict[str, Callable[[], object]], *, reference: str, warmup: int, samples: int
) -> dict[str, Timing]:
    """Median, range and paired ratio (against ``reference``) of each candidate's timed calls.

    Each round runs every candidate once, in the next of :func:`balanced_orders`; there are at least
    ``samples`` rounds, rounded up to whole cycles of orders so the balance holds. Taking turns spreads
    clock and cache drift over every candidate instead of favouring the last.
    """
    names = list(calls)
    orders = balanced_orders(len(names))
    rounds = -(-samples // len(orders)) * len(orders)
    for _ in range(warmup):
        for call in calls.values():
            call()
    times: dict[str, list[float]] = {name: [] for name in names}
    for round_index in range(rounds):
        for position in orders[round_index % len(orders)]:
            name = names[position]
            start = time.perf_counter_ns()
            calls[name]()
            times[name].append((time.perf_counter_ns() - start) / 1e6)
    base = times[reference]
    return {
        name: Timing(
            median_ms=statistics.median(t),
            min_ms=min(t),
            max_ms=max(t),
            samples=rounds,
            paired_ratio=statistics.median(mine / theirs for mine, theirs in zip(t, base, strict=True)),
        )
        for name, t in times.items()
    }


def peak_extra_mb(call: Callable[[], object]) -> float | None:
    """Resident memory the call adds at its peak, result included; None where Linux cannot tell."""
    gc.collect()
    _return_free_heap_to_the_os()
    try:
        _CLEAR_REFS.write_text("5")  # resets the peak resident set size (VmHWM) of this process
    except OSError:
        return None
    before = _status_kib("VmRSS")
    result = call()
    peak = _status_kib("VmHWM")
    del result
    return max(0.0, (peak - before) / 1024)


def _return_free_heap_to_the_os() -> None:
    """Hand freed heap pages back, so the call's allocations fault in afresh and show in the peak.

    Without it glibc keeps memory freed by earlier calls resident and the call reuses it unseen.
    """
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _status_kib(field: str) -> int:
    match = re.search(rf"^{field}:\s+(\d+) kB", _STATUS.read_text(), re.MULTILINE)
    return int(match.group(1)) if match else 0


def disagreement(candidate, public, *, dtype: str, nearest: bool) -> str | None:
    """Why ``candidate``'s result may not stand in for the public one, or None when it agrees.

    uint8 may differ by one grey level (rounding of float32 coordinates); float32 by 1e-4 on values in
    [0, 1]. Nearest-neighbour results may pick the other neighbour at float32 rounding ties: up to 0.1%
    of voxels.
    """
    got, want = _as_float_array(candidate), _as_float_array(public)
    if got.shape != want.shape:
        return f"shape {got.shape} instead of {want.shape}"
    tolerance = 1.0 if dtype == "uint8" else 1e-4
    off = np.abs(got - want) > tolerance
    allowed = 1e-3 if nearest else 0.0
    if off.mean() > allowed:
        return f"{off.mean():.2%} of voxels differ (max {np.abs(got - want).max():.3g})"
    return None


def _as_float_array(result) -> np.ndarray:
    array = result.numpy() if isinstance(result, torch.Tensor) else result
    return np.asarray(array, dtype=np.float64)
