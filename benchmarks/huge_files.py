"""Time and peak memory of linting one huge file, for each kind of huge file seen in the wild.

    python benchmarks/huge_files.py [--before EXE] [--after EXE] [--repeat 3]

Generates three files in a temporary folder and lints each, cold (``--no-cache``), as a whole
process: ``literal``, a generated table (``import torch`` and one million-element list literal, 8.4 MB);
``findings``, 42,000 lines of small functions with 12,250 findings (715 KB); and ``at-limit``, the
densest source just under the default ``max-file-size`` (a literal of 521 KB), the largest file the
linter still parses. Each run is started by a measuring process of its own, so its peak resident
memory (``ru_maxrss`` of its children) is that run's alone. ``--before EXE`` times another build (an
older revision installed in its own venv) in the same rounds and prints the ratios.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

#: Runs one command and prints its wall time in seconds and the peak RSS of its process in KiB.
MEASURE = """
import resource, subprocess, sys, time
start = time.perf_counter()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def literal(count: int) -> str:
    """A generated table: ``count`` six-digit integers, ten to a line, in one list literal."""
    numbers = random.Random(13).choices(range(100_000, 1_000_000), k=count)
    rows = (", ".join(map(str, numbers[i : i + 10])) for i in range(0, count, 10))
    return "import torch\n\nTABLE = [\n" + ",\n".join(f"    {row}" for row in rows) + ",\n]\n"


def findings(count: int) -> str:
    """``count`` four-line routes, each with one finding and every sixth with a second."""
    blocks = []
    for i in range(count):
        extra = ".float().cuda()" if i % 6 == 0 else ".float()"
        blocks.append(f"def route_{i}(volume):\n    return volume.cuda(), volume{extra}\n\n\n")
    return "import torch\n\n\n" + "".join(blocks)


CASES = {
    "literal": lambda: literal(1_000_000),
    "findings": lambda: findings(10_500),
    "at-limit": lambda: literal(62_000),
}


def measure(executable: str, path: Path) -> tuple[float, float]:
    """Seconds and peak MB of one cold lint of ``path``."""
    command = [sys.executable, "-c", MEASURE, executable, "--no-cache", "-q", str(path)]
    seconds, kib = subprocess.run(command, capture_output=True, text=True, check=True).stdout.split()
    return float(seconds), int(kib) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--after", default=shutil.which("torchperf-lint"), help="default: torchperf-lint on PATH")
    parser.add_argument("--before", help="another build's torchperf-lint, timed in the same rounds")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    tools = {"after": args.after, **({"before": args.before} if args.before else {})}
    with tempfile.TemporaryDirectory() as folder:
        files = {}
        for name, make in CASES.items():
            files[name] = Path(folder, f"{name}.py")
            files[name].write_text(make())
        print("| case | size | lines | build | median time | peak RSS |")
        print("| --- | --- | --- | --- | --- | --- |")
        results: dict[tuple[str, str], tuple[float, float]] = {}
        for name, path in files.items():
            runs: dict[str, list[tuple[float, float]]] = {tool: [] for tool in tools}
            for _ in range(args.repeat):
                for tool, executable in tools.items():
                    runs[tool].append(measure(executable, path))
            text = path.read_text()
            for tool in tools:
                seconds = statistics.median(run[0] for run in runs[tool])
                peak = max(run[1] for run in runs[tool])
                results[name, tool] = seconds, peak
                size = f"{len(text.encode()) / 1e6:.2f} MB"
                print(f"| {name} | {size} | {text.count(chr(10))} | {tool} | {seconds:.2f} s | {peak:.0f} MB |")
        if args.before:
            print("\nafter / before:")
            for name in files:
                (after_s, after_mb), (before_s, before_mb) = results[name, "after"], results[name, "before"]
                print(f"  {name}: time {after_s / before_s:.3f}, peak RSS {after_mb / before_mb:.3f}")


if __name__ == "__main__":
    main()
