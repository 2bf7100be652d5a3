"""What one call of a candidate allocates and copies: the runtime probe's exact counts.

Peak resident memory (``measure.peak_extra_mb``) moves between runs of the same code by a few
megabytes of heap state; these counts do not, so the report's allocation figures come from here.
"""

from __future__ import annotations

from torchperf_lint.probe import probe_call

from .peers import Prepared


def probe_counts(runner: Prepared, call: dict) -> dict:
    """The probe's counts for one call of ``runner`` on ``call``'s arrays, as the results record them.

    ``call`` is handed to the probe as the argument, so its arrays are the inputs watched for writes
    and its volume is the yardstick of "full-size".
    """
    report = probe_call(lambda arguments: runner(), (call,))
    return {
        "allocated_bytes": report.allocated_bytes,
        "internal_bytes": report.internal_bytes,
        "peak_bytes": report.peak_bytes,
        "retained_bytes": report.retained_bytes,
        "buffers": [[item.op, item.nbytes, list(item.shape), item.dtype] for item in report.allocations],
        "full_size_copies": [op.name for op in report.full_size_copies],
        "full_size_passes": [op.name for op in report.full_size_ops],
        "host_reads": sum(report.host_reads.values()),
        "breaches": list(report.breaches),
    }
