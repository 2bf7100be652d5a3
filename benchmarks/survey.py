"""Lint the installed torch package's own sources: findings per rule, runtime, and any crash.

    python benchmarks/survey.py [--samples N] [--jobs N]

Torch is located with ``importlib.util.find_spec`` (which does not import it) and never imported;
the files are linted with every rule through the same runner the CLI uses, without the cache. With
``--samples N`` it prints N findings per rule, chosen with a fixed seed, for reading by hand.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import time
from collections import Counter
from importlib.metadata import version
from pathlib import Path

from torchperf_lint.config import Settings
from torchperf_lint.kernel_map.project import attach
from torchperf_lint.registry import all_rules
from torchperf_lint.runner import Job, Workers, run
from torchperf_lint.workspace import Project, file_settings


def torch_sources() -> Path:
    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        raise SystemExit("survey: torch is not installed")
    return Path(spec.origin).parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=0, help="findings per rule to print for review")
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: one per core)")
    args = parser.parse_args(argv)
    root = torch_sources()
    files = sorted(p for p in root.rglob("*.py") if p.is_file())
    lines = sum(p.read_bytes().count(b"\n") for p in files)
    project = Project.of(Settings(root=root, per_file_ignores={}), frozenset(all_rules()))
    start = time.perf_counter()
    jobs = [Job(p, str(p.relative_to(root)), file_settings(p, project)) for p in files]
    with Workers(args.jobs) as workers:
        findings = run(attach(jobs, use_cache=False, mapper=workers.map), workers)
    seconds = time.perf_counter() - start
    counts = Counter(f.code for f in findings)
    print(f"torch {version('torch')}: {len(files)} files, {lines} lines, linted in {seconds:.1f} s")
    print("| rule | name | findings |\n| --- | --- | --- |")
    for code, rule in all_rules().items():
        print(f"| {code} | {rule.name} | {counts.get(code, 0)} |")
    if args.samples:
        picker = random.Random(0)
        for code in all_rules():
            hits = [f for f in findings if f.code == code]
            for finding in picker.sample(hits, min(args.samples, len(hits))):
                print(f"{finding.path}:{finding.row}:{finding.column}: {code} {finding.message}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
