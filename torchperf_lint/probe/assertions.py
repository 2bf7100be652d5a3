"""Assertions for kernel tests: a failure names every breach or every count over its budget."""

from __future__ import annotations

from .report import ProbeReport, megabytes


def assert_kept(report: ProbeReport) -> None:
    """Fail with one line per breach when the call breaks the performance contract."""
    if report.breaches:
        raise AssertionError(
            f"{report.function} breaks the contract:\n" + "\n".join(f"  - {b}" for b in report.breaches)
        )


def assert_within(
    report: ProbeReport,
    *,
    allocated_bytes: int | None = None,
    peak_bytes: int | None = None,
    full_size_copies: int | None = None,
    full_size_passes: int | None = None,
    host_reads: int | None = None,
) -> None:
    """Fail when any given count exceeds its budget, listing each one over and the call's buffers."""
    counts = {
        "allocated_bytes": (report.allocated_bytes, allocated_bytes),
        "peak_bytes": (report.peak_bytes, peak_bytes),
        "full_size_copies": (len(report.full_size_copies), full_size_copies),
        "full_size_passes": (report.full_size_passes, full_size_passes),
        "host_reads": (sum(report.host_reads.values()), host_reads),
    }
    over = [
        f"  {name}: {value:,} > {budget:,}"
        for name, (value, budget) in counts.items()
        if budget is not None and value > budget
    ]
    if over:
        buffers = "\n".join(f"    {a.nbytes:>13,} B  {a.op} -> {a.dtype} {a.shape}" for a in report.allocations)
        raise AssertionError(
            f"{report.function} is over budget:\n"
            + "\n".join(over)
            + f"\n  buffers ({megabytes(report.allocated_bytes)}):\n{buffers}"
        )
