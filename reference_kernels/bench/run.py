"""The benchmark run: every region's candidates checked against the public call, timed, measured."""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import torch

from . import heap
from .counts import probe_counts
from .measure import disagreement, peak_extra_mb, time_interleaved
from .peers import PEERS, Prepared, peer_candidates
from .provenance import provenance
from .regions import (
    FULL_DHW,
    NON_TORCH,
    QUICK_DHW,
    REGIONS,
    RIVALS,
    Region,
    build_call,
    output_size,
    public,
    route_of,
)

SCHEMA = "torchperf-bench/4"
#: Timed samples and untimed warm-up calls per candidate.
QUICK_SAMPLES, FULL_SAMPLES, WARMUP = 9, 21, 2


def run(args: argparse.Namespace, argv: list[str]) -> int:
    """Time the chosen regions and write the results JSON; ``argv`` is recorded as the command."""
    sizes = [args.size] if args.size else [QUICK_DHW] if args.quick else [QUICK_DHW, FULL_DHW]
    samples = QUICK_SAMPLES if args.quick else FULL_SAMPLES
    chosen = [
        r for r in REGIONS if (args.regions is None or r.id in args.regions) and not (r.full_only and args.quick)
    ]
    rows = []
    for threads in args.threads:
        torch.set_num_threads(threads)
        _set_opencv_threads(threads)
        at_this_count = []
        for dhw in sizes:
            for region in chosen:
                at_this_count.append(_run_region(region, dhw, threads, samples, args.peers))
                print(_summary(at_this_count[-1]), file=sys.stderr)
        _measure_memory(at_this_count)
        rows += at_this_count
    results = {
        "schema": SCHEMA,
        "environment": _environment(),
        "provenance": {
            **provenance(argv=argv, threads=args.threads, torch_version=torch.__version__),
            "heap": heap.record(args.heap),
        },
        "regions": rows,
    }
    text = json.dumps(results, indent=2)
    if args.json:
        Path(args.json).write_text(text + "\n", encoding="utf-8")
    else:
        print(text)
    return 0


def unknown_regions(requested: set[str] | None) -> list[str]:
    """Requested region ids that the benchmark does not define."""
    return sorted((requested or set()) - {region.id for region in REGIONS})


def _set_opencv_threads(threads: int) -> None:
    try:
        import cv2
    except ImportError:
        return
    cv2.setNumThreads(threads)


def _run_region(region: Region, dhw: tuple[int, int, int], threads: int, samples: int, peers: tuple) -> dict:
    call = build_call(region, dhw)
    expected = public(call)
    checked, runnable = {}, {}
    for name in ("public", "naive", *region.rivals, *peer_candidates(peers, region.function)):
        entry = {"name": name, "backend": name if name in NON_TORCH or name in PEERS else "torch"}
        if name in PEERS:
            entry["peer"] = True
        try:
            runner = _prepare(name, call)
            checked[name] = {**entry, **_agreement(name, runner, expected, region)}
        except ImportError as missing:  # a peer or a non-Torch rival that is not installed
            checked[name] = {**entry, "status": "not-run", "reason": f"not installed: {missing.name}"}
            continue
        if checked[name]["status"] == "ok":
            runnable[name] = runner
    timings = time_interleaved(runnable, reference="public", warmup=WARMUP, samples=samples)
    for name, timing in timings.items():
        checked[name].update(
            median_ms=round(timing.median_ms, 3),
            min_ms=round(timing.min_ms, 3),
            max_ms=round(timing.max_ms, 3),
            samples=timing.samples,
        )
        if name != "public":
            checked[name]["paired_ratio_to_public"] = round(timing.paired_ratio, 4)
        if name in ("public", "naive") or name in PEERS:
            checked[name]["probe"] = probe_counts(runnable[name], call)
    volume = call["volume"]
    return {
        "id": region.id,
        "route": route_of(call),
        "function": region.function,
        "threads": threads,
        "params": {
            "layout": region.layout,
            "shape": list(volume.shape),
            "strides": list(volume.stride() if isinstance(volume, torch.Tensor) else volume.strides),
            "dtype": region.dtype,
            "matrix": region.matrix if region.function == "warp_affine3d" else None,
            "size": list(output_size(call)),
            "interpolation": region.interpolation,
            "border_mode": region.border_mode,
            "border_value": call["border_value"],
        },
        "candidates": list(checked.values()),
    }


def _prepare(name: str, call: dict) -> Prepared:
    """A zero-argument runner of candidate ``name`` on ``call``. A peer translates the call into its own
    API here, outside any timing, and raises ImportError when it is not installed."""
    if name in PEERS:
        return PEERS[name](call)
    run = public if name == "public" else RIVALS[name]
    return lambda: run(call)


def _agreement(name: str, runner: Prepared, expected, region: Region) -> dict:
    """Status and agreement of a candidate: a rival is timed only if its result agrees with the public
    call's. Raises ImportError for a backend that is not installed."""
    if name == "public":
        return {"status": "ok"}
    result = runner()
    problem = disagreement(result, expected, dtype=region.dtype, nearest=region.interpolation == "nearest")
    if problem:
        return {"status": "mismatch", "agreement": "failed", "reason": problem}
    return {"status": "ok", "agreement": "passed"}


def _measure_memory(rows: list[dict]) -> None:
    """Peak extra resident memory of each timed candidate, once per region and size, at the thread
    count the rows were timed with: some routes (the depth split) allocate differently with more
    threads."""
    regions = {region.id: region for region in REGIONS}
    peaks: dict[tuple, float | None] = {}
    for row in rows:
        size = tuple(row["params"]["size"])
        for entry in row["candidates"]:
            if entry["status"] != "ok":
                continue
            key = (row["id"], size, entry["name"])
            if key not in peaks:
                runner = _prepare(entry["name"], build_call(regions[row["id"]], size))
                peaks[key] = _rounded(peak_extra_mb(runner))
            entry["peak_extra_mb"] = peaks[key]


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def _environment() -> dict:
    return {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "versions": {name: _version(name) for name in ("torch", "numpy", "scipy", "opencv-python-headless")},
    }


def _version(name: str) -> str | None:
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def _summary(row: dict) -> str:
    timed = {c["name"]: c for c in row["candidates"] if c["status"] == "ok"}
    base = timed["naive"]["median_ms"]
    parts = [f"{n} {c['median_ms']:.1f}ms ({c['median_ms'] / base:.2f})" for n, c in timed.items()]
    return f"[threads={row['threads']} {row['id']} {row['params']['size']}] " + ", ".join(parts)
