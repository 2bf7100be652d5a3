"""What a change added to a call: two reports of the same call compared count by count."""

from __future__ import annotations

from dataclasses import dataclass

from .report import ProbeReport, megabytes


@dataclass(frozen=True)
class ProbeDiff:
    """Changes from ``base`` to ``head``, one line each (``+1 full-size copy per call``); empty when
    the two calls did the same."""

    lines: tuple[str, ...]

    def __bool__(self) -> bool:
        return bool(self.lines)

    def text(self) -> str:
        return "".join(f"{line}\n" for line in self.lines) if self.lines else "no change\n"


def diff(base: ProbeReport, head: ProbeReport) -> ProbeDiff:
    """What ``head`` does per call that ``base`` did not (and what it no longer does)."""
    lines = [
        _count(len(head.full_size_copies) - len(base.full_size_copies), "full-size copy", "full-size copies"),
        _count(head.full_size_passes - base.full_size_passes, "full-size pass", "full-size passes"),
        _count(len(head.allocations) - len(base.allocations), "buffer", "buffers"),
        _bytes(head.allocated_bytes - base.allocated_bytes, "allocated"),
        _bytes(head.peak_bytes - base.peak_bytes, "at the peak"),
        _count(sum(head.host_reads.values()) - sum(base.host_reads.values()), "host read", "host reads"),
    ]
    lines += [f"now breaches: {breach}" for breach in head.breaches if breach not in base.breaches]
    lines += [f"no longer breaches: {breach}" for breach in base.breaches if breach not in head.breaches]
    for path in sorted(base.outputs.keys() | head.outputs.keys()):
        before, after = base.outputs.get(path), head.outputs.get(path)
        if before != after:
            was, now = (info.text() if info else "absent" for info in (before, after))
            lines.append(f"{path}: {was} -> {now}")
    return ProbeDiff(tuple(line for line in lines if line))


def _count(change: int, one: str, many: str) -> str:
    if not change:
        return ""
    return f"{change:+d} {one if abs(change) == 1 else many} per call"


def _bytes(change: int, what: str) -> str:
    if not change:
        return ""
    sign = "+" if change > 0 else "-"
    return f"{sign}{megabytes(abs(change))} {what} ({change:+,} bytes)"
