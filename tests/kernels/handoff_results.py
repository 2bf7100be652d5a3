"""Hand-made benchmark results in the documented schema, for the handoff renderer and check tests."""

from __future__ import annotations

import copy


def must_list(row: dict) -> bool:
    """Whether the Regressions section must list a results row: the public call is not ahead of the
    naive path, or a peer is ahead of it by more than the 3% tie."""
    median = {c["name"]: c.get("median_ms") for c in row["candidates"]}
    behind_a_peer = any(1 / c["paired_ratio_to_public"] > 1.03 for c in row["candidates"] if c.get("peer"))
    return median["public"] / median["naive"] >= 1.0 or behind_a_peer


def probe_counts(output_bytes=8192, copies=(), reads=0, breaches=()):
    """Probe counts of a call on the 8x8x8 float32 volume batch of :func:`region`: a result and a grid."""
    buffers = [["aten.empty", 6144, [8, 8, 8, 3], "float32"],
               ["aten.grid_sampler_3d", output_bytes, [output_bytes // 4], "float32"]]  # fmt: skip
    return {"allocated_bytes": 6144 + output_bytes + 16, "internal_bytes": 16,
            "peak_bytes": 6144 + output_bytes, "retained_bytes": output_bytes, "buffers": buffers,
            "full_size_copies": list(copies), "full_size_passes": ["aten.grid_sampler_3d", *copies],
            "host_reads": reads, "breaches": list(breaches)}  # fmt: skip


def candidate(name, median, backend="torch", peak=1.0, **extra):
    agreement = {} if name == "public" else {"agreement": "passed"}
    counts = {"probe": probe_counts()} if name in ("public", "naive") else {}
    return {"name": name, "backend": backend, "status": "ok", **agreement, "median_ms": median, "min_ms": median,
            "max_ms": median, "samples": 5, "peak_extra_mb": peak, **counts, **extra}  # fmt: skip


def region(rid, route, *candidates, threads=1):
    params = {"layout": "NCDHW", "shape": [4, 1, 8, 8, 8], "strides": [512, 512, 64, 8, 1], "dtype": "float32",
              "matrix": "general", "size": [8, 8, 8], "interpolation": "linear", "border_mode": "constant",
              "border_value": 0.0}  # fmt: skip
    return {"id": rid, "route": route, "function": "warp_affine3d", "threads": threads, "params": params,
            "candidates": list(candidates)}  # fmt: skip


_RESULTS = {
    "schema": "torchperf-bench/4",
    "environment": {
        "date": "2026-12-03",
        "python": "3.11",
        "platform": "test",
        "versions": {"torch": "2.13.0", "numpy": "2", "scipy": None, "opencv-python-headless": None},
    },
    "provenance": {
        "command": "python -m bench --threads 1",
        "torch": "2.13.0",
        "threads": [1],
        "cpu": "test cpu",
        "cores": 1,
        "package": "kernel",
        "sources": {},
    },
    "regions": [
        region("fast", "fold", candidate("public", 5.0), candidate("naive", 10.0), candidate("batched-3d", 8.0)),
        region(
            "slow",
            "general-3d",
            candidate("public", 12.0),
            candidate("naive", 10.0),
            candidate("per-item-3d", 6.0),
            {"name": "opencv", "backend": "opencv", "status": "not-run", "reason": "not installed: cv2"},
        ),
    ],
}


def results(**provenance) -> dict:
    """A fresh copy of the results, with provenance fields replaced."""
    fresh = copy.deepcopy(_RESULTS)
    fresh["provenance"].update(provenance)
    return fresh
