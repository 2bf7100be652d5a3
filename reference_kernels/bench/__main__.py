"""``python -m torchperf_lint.reference_kernels.bench``: time every region and write the results JSON."""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

try:
    import torch

    from .measure import disagreement, peak_extra_mb, time_round_robin
    from .provenance import provenance
    from .regions import FULL_DHW, NON_TORCH, QUICK_DHW, REGIONS, RIVALS, Region, build_call, public
except ModuleNotFoundError as missing:  # the kernels extra is not installed: say so, without a traceback
    print(
        f"the benchmark needs {missing.name}, which the `kernels` extra installs: "
        "pip install 'torchperf-lint[kernels]'",
        file=sys.stderr,
    )
    raise SystemExit(2) from None

SCHEMA = "torchperf-bench/2"
#: Timed samples and untimed warm-up calls per candidate.
QUICK_SAMPLES, FULL_SAMPLES, WARMUP = 9, 21, 2


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parse(argv)
    sizes = [args.size] if args.size else [QUICK_DHW] if args.quick else [QUICK_DHW, FULL_DHW]
    samples = QUICK_SAMPLES if args.quick else FULL_SAMPLES
    chosen = [
        r for r in REGIONS if (args.regions is None or r.id in args.regions) and not (r.full_only and args.quick)
    ]
    rows = []
    for threads in args.threads:
        torch.set_num_threads(threads)
        _set_opencv_threads(threads)
        for dhw in sizes:
            for region in chosen:
                rows.append(_run_region(region, dhw, threads, samples))
                print(_summary(rows[-1]), file=sys.stderr)
    _measure_memory(rows)
    results = {
        "schema": SCHEMA,
        "environment": _environment(),
        "provenance": provenance(argv=argv, threads=args.threads, torch_version=torch.__version__),
        "regions": rows,
    }
    text = json.dumps(results, indent=2)
    if args.json:
        Path(args.json).write_text(text + "\n", encoding="utf-8")
    else:
        print(text)
    return 0


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m torchperf_lint.reference_kernels.bench")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="one size, fewer samples (about a minute)")
    mode.add_argument("--full", action="store_true", help="two sizes, every region (the default)")
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    parser.add_argument("--json", metavar="OUT", help="write the results here instead of stdout")
    parser.add_argument("--regions", help="comma-separated region ids (default: all)")
    parser.add_argument("--size", help="one spatial size D,H,W instead of the mode's sizes")
    args = parser.parse_args(argv)
    args.threads = _integers(parser, "--threads", args.threads)
    args.size = tuple(_integers(parser, "--size", args.size)) if args.size else None
    if args.size is not None and len(args.size) != 3:
        parser.error("--size takes three integers D,H,W")
    if args.regions is not None:
        args.regions = set(args.regions.split(","))
        unknown = args.regions - {r.id for r in REGIONS}
        if unknown:
            parser.error(f"unknown region ids: {', '.join(sorted(unknown))}")
    return args


def _integers(parser: argparse.ArgumentParser, option: str, text: str) -> list[int]:
    try:
        values = [int(part) for part in text.split(",")]
    except ValueError:
        parser.error(f"{option} takes positive integers such as 1,2, got {text!r}")
    if any(value < 1 for value in values):
        parser.error(f"{option} takes positive integers, got {text!r}")
    return values


def _set_opencv_threads(threads: int) -> None:
    try:
        import cv2
    except ImportError:
        return
    cv2.setNumThreads(threads)


def _run_region(region: Region, dhw: tuple[int, int, int], threads: int, samples: int) -> dict:
    call = build_call(region, dhw)
    expected = public(call)
    checked = {name: _checked(name, call, expected, region) for name in ("public", "naive", *region.rivals)}
    runnable = {name: _runner(name, call) for name, entry in checked.items() if entry["status"] == "ok"}
    for name, timing in time_round_robin(runnable, warmup=WARMUP, samples=samples).items():
        checked[name].update(
            median_ms=round(timing.median_ms, 3),
            min_ms=round(timing.min_ms, 3),
            max_ms=round(timing.max_ms, 3),
            samples=timing.samples,
        )
    volume = call["volume"]
    return {
        "id": region.id,
        "route": region.single_thread_route if threads == 1 and region.single_thread_route else region.route,
        "function": region.function,
        "threads": threads,
        "params": {
            "layout": region.layout,
            "shape": list(volume.shape),
            "strides": list(volume.stride() if isinstance(volume, torch.Tensor) else volume.strides),
            "dtype": region.dtype,
            "matrix": region.matrix if region.function == "warp_affine3d" else None,
            "size": list(dhw),
            "interpolation": region.interpolation,
            "border_mode": region.border_mode,
            "border_value": call["border_value"],
        },
        "candidates": list(checked.values()),
    }


def _checked(name: str, call: dict, expected, region: Region) -> dict:
    """The candidate's entry with its status: a rival is timed only if it agrees with the public call."""
    entry = {"name": name, "backend": name if name in NON_TORCH else "torch", "status": "ok"}
    if name == "public":
        return entry
    try:
        result = RIVALS[name](call)
    except ImportError as missing:
        return {**entry, "status": "not-run", "reason": f"not installed: {missing.name}"}
    problem = disagreement(result, expected, dtype=region.dtype, nearest=region.interpolation == "nearest")
    if problem:
        return {**entry, "status": "mismatch", "agreement": "failed", "reason": problem}
    return {**entry, "agreement": "passed"}


def _runner(name: str, call: dict):
    run = public if name == "public" else RIVALS[name]
    return lambda: run(call)


def _measure_memory(rows: list[dict]) -> None:
    """Peak extra resident memory of each timed candidate, once per region and size: the thread count
    does not change what is allocated."""
    regions = {region.id: region for region in REGIONS}
    peaks: dict[tuple, float | None] = {}
    for row in rows:
        size = tuple(row["params"]["size"])
        for entry in row["candidates"]:
            if entry["status"] != "ok":
                continue
            key = (row["id"], size, entry["name"])
            if key not in peaks:
                call = build_call(regions[row["id"]], size)
                peaks[key] = _rounded(peak_extra_mb(_runner(entry["name"], call)))
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


if __name__ == "__main__":
    raise SystemExit(main())
