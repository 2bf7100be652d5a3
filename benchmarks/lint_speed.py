"""Time torchperf-lint against the bare LibCST parse and its peers on a fixed corpus of torch sources.

    python benchmarks/lint_speed.py [--repeat 5] [--peer-repeat 1] [--peers-bin DIR] [--against EXE]

The corpus is copied from the installed torch package (``nn``, ``_refs``, ``distributions``, ``optim``,
``ao/quantization/fx``) into a temporary folder; torch is located without being imported. Every tool
runs as a whole process (start to exit), and the script prints medians, ratios and the peak resident
memory of the largest process in each run. Runs go round-robin (each round runs every command once),
so a slow spell of a shared machine does not land on one tool only. TorchFix, Fixit and Ruff are
timed when found on PATH or in ``--peers-bin`` (TorchFix pins an older LibCST, so keep the peers in
their own venv). ``--against EXE`` also times another torchperf-lint build (an older revision
installed in its own venv) cold, in the same rounds, to show what a change cost.

The pre-commit case is timed on a second corpus, a package of 500 torch files: with its project
index and findings cache warm, each round edits two files (a comment line) and lints just those two,
as the hook does with the files a commit stages, so the index re-reads two summaries' files and the
other 498 come from the stored index.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

CORPUS_DIRS = ("nn", "_refs", "distributions", "optim", "ao/quantization/fx")
PACKAGE_DIRS = ("nn", "_refs", "distributions", "optim", "ao", "fx", "_decomp", "_prims")
PACKAGE_FILES = 500
SINGLE_FILE = "nn/modules/conv.py"
PARSE_SNIPPET = (
    "import sys, time, libcst\n"
    "texts = [open(p, encoding='utf-8').read() for p in sys.argv[1:]]\n"
    "start = time.perf_counter()\n"
    "for text in texts:\n"
    "    libcst.parse_module(text)\n"
    "print(time.perf_counter() - start)\n"
)


@dataclass
class Measure:
    name: str
    seconds: list[float]
    peak_mb: float

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


def torch_root() -> Path:
    """The installed torch package's folder, found without importing torch."""
    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        raise SystemExit("lint_speed: torch is not installed")
    return Path(spec.origin).parent


def corpus_sources() -> list[Path]:
    """The corpus files inside the installed torch package."""
    root = torch_root()
    return [source for relative in CORPUS_DIRS for source in sorted((root / relative).rglob("*.py"))]


def build_corpus(folder: Path) -> list[Path]:
    root = torch_root()
    files = []
    for source in corpus_sources():
        target = folder / source.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        files.append(target)
    (folder / "pyproject.toml").write_text("[tool.torchperf-lint]\n")
    return files


def build_package(folder: Path) -> list[Path]:
    """A package of ``PACKAGE_FILES`` torch files, ``kernels`` (with every ``__init__.py`` on the way),
    and the two files a pre-commit round edits. It is named like a user's package, not ``torch``, so
    its own ``import torch`` is a library it uses, as in any project that lints with this tool."""
    root = torch_root()
    sources = [s for relative in PACKAGE_DIRS for s in sorted((root / relative).rglob("*.py"))][:PACKAGE_FILES]
    for source in sources:
        target = folder / "kernels" / source.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    for package in {p.parent for p in (folder / "kernels").rglob("*.py")}:
        (package / "__init__.py").touch()
    (folder / "pyproject.toml").write_text("[tool.torchperf-lint]\n")
    return [folder / "kernels" / "nn" / "modules" / "flatten.py", folder / "kernels" / "optim" / "sgd.py"]


#: Every tool runs as installed software runs: from compiled bytecode. A ``PYTHONDONTWRITEBYTECODE``
#: in the caller's environment would make each run of an editable checkout compile its modules anew
#: (a third of a second for this project), a cost no installed wheel pays, so it is dropped.
TOOL_ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def run_once(command: list[str], cwd: Path) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of the largest process in the command's process tree."""
    start = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=TOOL_ENV
    )
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return seconds, usage.ru_maxrss / 1024


class Rounds:
    """Measurements taken round-robin: every round runs each command once, so a slower spell of the
    machine hits every tool alike and the ratios stay honest."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self.results: dict[str, Measure] = {}

    def run(self, key: str, name: str, command: list[str]) -> None:
        elapsed, peak = run_once(command, self.cwd)
        self._record(key, name, elapsed, peak)

    def run_in(self, key: str, name: str, command: list[str], cwd: Path) -> None:
        elapsed, peak = run_once(command, cwd)
        self._record(key, name, elapsed, peak)

    def run_parse(self, files: list[Path]) -> None:
        """The bare parse times itself inside the process, without start-up or reading the files."""
        parse = [sys.executable, "-c", PARSE_SNIPPET, *map(str, files)]
        seconds = float(subprocess.run(parse, capture_output=True, text=True, check=True).stdout)
        self._record("parse", "bare libcst.parse_module, serial", seconds, 0.0)

    def _record(self, key: str, name: str, seconds: float, peak: float) -> None:
        found = self.results.setdefault(key, Measure(name, [], 0.0))
        found.seconds.append(seconds)
        found.peak_mb = max(found.peak_mb, peak)

    def print_medians(self) -> None:
        for result in self.results.values():
            line = f"  {result.name:<34} median {result.median:7.2f} s  peak {result.peak_mb:6.0f} MB"
            print(line, file=sys.stderr)


def peer(name: str, bin_dir: Path | None) -> str | None:
    if bin_dir is not None and (bin_dir / name).exists():
        return str(bin_dir / name)
    return shutil.which(name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per torchperf-lint and Ruff measurement")
    parser.add_argument("--peer-repeat", type=int, default=1, help="runs per TorchFix and Fixit measurement")
    parser.add_argument("--peers-bin", type=Path, help="folder holding the torchfix, fixit and ruff executables")
    parser.add_argument("--against", type=Path, help="another torchperf-lint executable to time cold alongside")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary)
        files = build_corpus(root / "corpus")
        staged = build_package(root / "package")
        lines = sum(p.read_bytes().count(b"\n") for p in files)
        print(f"corpus: torch {version('torch')}, {len(files)} files, {lines} lines; {os.cpu_count()} cores")
        results = time_everything(root, files, staged, args)
    report(results)
    return 0


def time_everything(
    root: Path, files: list[Path], staged: list[Path], args: argparse.Namespace
) -> dict[str, Measure]:
    single = root / "corpus" / SINGLE_FILE
    cache, ruff_cache = root / "cache", root / "ruff-cache"
    lint = [sys.executable, "-m", "torchperf_lint", "check", "-q", "--exit-zero"]
    torchfix, fixit, ruff = (peer(name, args.peers_bin) for name in ("torchfix", "fixit", "ruff"))
    ruff_lint = [ruff or "ruff", "check", "--select", "ALL", "--exit-zero", "--quiet", "corpus"]
    run_once([*lint, "--cache-dir", str(cache), "corpus"], root)  # fill the caches once
    package = root / "package"
    run_once([*lint, "package"], root)  # the package's index and findings, in its own cache folder
    hook = [*lint, "--force-exclude", *(str(p.relative_to(package)) for p in staged)]
    if ruff:
        run_once([*ruff_lint, "--cache-dir", str(ruff_cache)], root)
    rounds = Rounds(root)
    against = [str(args.against), "check", "-q", "--exit-zero", "--no-cache", "corpus"] if args.against else None
    for index in range(args.repeat):
        rounds.run("cold", "torchperf-lint cold (no cache)", [*lint, "--no-cache", "corpus"])
        if against:
            rounds.run("against", f"{args.against} cold", against)
        rounds.run_parse(files)
        rounds.run("warm", "torchperf-lint warm (cache)", [*lint, "--cache-dir", str(cache), "corpus"])
        rounds.run("single", "torchperf-lint single file", [*lint, "--no-cache", str(single)])
        for path in staged:  # a commit that changes two files
            path.write_text(path.read_text() + f"# round {index}\n")
        rounds.run_in("precommit", "pre-commit run, 2 of 500 files", hook, package)
        if ruff:
            rounds.run("ruff", "Ruff --select ALL, no cache", [*ruff_lint, "--no-cache"])
            rounds.run("ruff warm", "Ruff --select ALL, warm", [*ruff_lint, "--cache-dir", str(ruff_cache)])
        if torchfix:
            rounds.run("torchfix single", "TorchFix single file", [torchfix, str(single)])
            if index < args.peer_repeat:
                rounds.run("torchfix", "TorchFix corpus", [torchfix, "corpus"])
        if fixit:
            rounds.run("fixit single", "Fixit single file", [fixit, "lint", str(single)])
            if index < args.peer_repeat:
                rounds.run("fixit", "Fixit corpus", [fixit, "lint", "corpus"])
    rounds.print_medians()
    return rounds.results


def report(results: dict[str, Measure]) -> None:
    cold, warm, single = results["cold"].median, results["warm"].median, results["single"].median
    print("\n| measurement | median | ratio | target |\n| --- | --- | --- | --- |")
    print(f"| torchperf-lint cold | {cold:.2f} s | | |")
    print(f"| torchperf-lint warm | {warm:.2f} s | | |")
    print(f"| torchperf-lint single file | {single:.2f} s | | |")
    print(f"| pre-commit run, 2 of 500 files, warm index | {results['precommit'].median:.2f} s | | <= 0.4 s |")
    parse = results["parse"].median
    print(f"| bare LibCST parse, serial | {parse:.2f} s | cold/parse {cold / parse:.2f} | <= 1.0 |")
    for key, label, mine, target in (
        ("torchfix", "TorchFix corpus", cold, "<= 0.05"),
        ("fixit", "Fixit corpus", cold, "<= 0.05"),
        ("torchfix single", "TorchFix single file", single, "<= 0.4"),
        ("fixit single", "Fixit single file", single, ""),
        ("ruff", "Ruff, no cache", cold, ""),
        ("ruff warm", "Ruff, warm", warm, "warm/warm <= 1.0"),
    ):
        if key in results:
            theirs = results[key].median
            print(f"| {label} | {theirs:.2f} s | ours/theirs {mine / theirs:.3f} | {target} |")
    if "against" in results:
        theirs = results["against"].median
        print(f"| {results['against'].name} | {theirs:.2f} s | this build/that {cold / theirs:.3f} | |")
    peak = max(results[k].peak_mb for k in ("cold", "warm", "single", "precommit"))
    print(f"| torchperf-lint peak RSS of any process | {peak:.0f} MB | | < 300 MB |")


if __name__ == "__main__":
    sys.exit(main())
