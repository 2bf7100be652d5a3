"""Lint pinned third-party Torch libraries and score the findings against a hand-labelled sample.

    python benchmarks/realcode.py [--tool PATH] [--cache-dir DIR] [--sample N --seed S]

The wheels are fetched with ``pip download --no-deps`` into a cache folder (ignored by git), unpacked,
and linted by the installed console script with the default settings: each unpacked package gets a
``pyproject.toml`` holding an empty ``[tool.torchperf-lint]`` table, so no surrounding configuration
applies and per-file patterns match paths inside the package. Nothing linted is imported.

``benchmarks/realcode/labels.tsv`` holds the labels (package, path, line, rule, verdict, snippet,
reason). A TP or FP label scores the current finding of that rule in that file whose source line holds
the snippet (nearest to the recorded line, so labels survive small edits). A MISS label records
something the rule should report: it counts as found when the rule reports it. The script prints
precision per rule on the labelled findings, the misses found, how many findings carry no label,
and counts per package. ``--sample N`` prints up to N unlabelled findings per rule and package, drawn
with a fixed seed, for labelling.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import shutil
import subprocess
import sys
import zipfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGES = {"albucore": "0.3.1", "kornia": "0.9.0", "torchvision": "0.29.1"}
LABELS = HERE / "realcode" / "labels.tsv"
CACHE = HERE / "realcode" / "downloads"
COLUMNS = ("package", "path", "line", "rule", "verdict", "snippet", "reason")
VERDICTS = ("TP", "FP", "MISS")
#: The contract rules that must stay silent on albucore, a package written to follow the contract.
CONTRACT_PREFIX = "TPL0"
#: How far (in lines) a labelled finding may have moved and still be the one its label speaks of.
MAX_DRIFT = 30
#: How much of the code at a finding ``--sample`` prints as its snippet.
SNIPPET_LENGTH = 60


@dataclass(frozen=True)
class Finding:
    package: str
    path: str
    line: int
    column: int
    rule: str
    message: str
    #: The source line from the finding's column on: a label's snippet is a prefix of it.
    source: str


@dataclass(frozen=True)
class Label:
    package: str
    path: str
    line: int
    rule: str
    verdict: str
    snippet: str
    reason: str


def fetch(package: str, version: str, cache: Path) -> Path:
    """The unpacked wheel of ``package==version``, downloaded and extracted once."""
    root = cache / "src" / f"{package}-{version}"
    if (root / "pyproject.toml").is_file():
        return root
    wheels = cache / "wheels"
    wheel = next(wheels.glob(f"{package}-{version}-*.whl"), None) if wheels.is_dir() else None
    if wheel is None:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "-q"]
        subprocess.run([*command, "-d", str(wheels), f"{package}=={version}"], check=True)
        wheel = next(wheels.glob(f"{package}-{version}-*.whl"))
    if root.exists():
        shutil.rmtree(root)
    with zipfile.ZipFile(wheel) as archive:
        members = [name for name in archive.namelist() if name.endswith(".py")]
        archive.extractall(root, members)
    (root / "pyproject.toml").write_text("[tool.torchperf-lint]\n", encoding="utf-8")
    return root


def lint(tool: str, package: str, root: Path) -> list[Finding]:
    """Every finding the console script reports on the unpacked package, with default settings."""
    # Files are named one by one: the cache folder is git-ignored, and a folder given to the linter is
    # walked with the repository's .gitignore applied, while a file named explicitly is always linted.
    files = sorted(path.relative_to(root).as_posix() for path in root.rglob("*.py"))
    command = [tool, "check", "--no-cache", "--exit-zero", "--output-format", "json", *files]
    done = subprocess.run(command, cwd=root, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"realcode: `{tool} check` in {root} exited {done.returncode}:\n{done.stderr}")
    lines_of: dict[str, list[str]] = {}
    found = []
    for item in json.loads(done.stdout):
        path = Path(item["filename"]).relative_to(root).as_posix()
        if path not in lines_of:
            lines_of[path] = (root / path).read_text(encoding="utf-8", errors="replace").splitlines()
        row, column = item["location"]["row"], item["location"]["column"]
        line = lines_of[path][row - 1] if 0 < row <= len(lines_of[path]) else ""
        at = line[column - 1 :].rstrip()
        found.append(Finding(package, path, row, column, item["code"], item["message"], at))
    return found


def read_labels(path: Path) -> list[Label]:
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        if tuple(reader.fieldnames or ()) != COLUMNS:
            raise SystemExit(f"realcode: {path} must have the columns {', '.join(COLUMNS)}")
        labels = []
        for number, row in enumerate(reader, 2):
            if row["verdict"] not in VERDICTS:
                raise SystemExit(f"realcode: {path}:{number}: verdict must be one of {', '.join(VERDICTS)}")
            labels.append(Label(**{**row, "line": int(row["line"])}))
    return labels


Index = dict[tuple[str, str, str], list[Finding]]


def match(label: Label, findings: Index, taken: set[Finding]) -> Finding | None:
    """The finding a label speaks of: same package, file and rule, the code at the finding starting
    with the snippet, not claimed by another label, nearest to the recorded line and at most
    ``MAX_DRIFT`` lines from it. (Nested calls such
    as ``a(b).c()`` start at the same column, so two labels may share a snippet.)"""
    candidates = [
        f
        for f in findings.get((label.package, label.path, label.rule), [])
        if f.source.startswith(label.snippet) and f not in taken and abs(f.line - label.line) <= MAX_DRIFT
    ]
    return min(candidates, key=lambda f: abs(f.line - label.line), default=None)


def score(findings: list[Finding], labels: list[Label]) -> tuple[dict[str, Counter], set[Finding]]:
    """Per rule: TP and FP among labelled current findings, FP labels that no longer fire ("gone"),
    TP labels that no longer fire ("lost"), misses recorded and found. Also the labelled findings."""
    by_key: Index = defaultdict(list)
    for finding in findings:
        by_key[(finding.package, finding.path, finding.rule)].append(finding)
    tally: dict[str, Counter] = defaultdict(Counter)
    labelled: set[Finding] = set()
    for label in labels:
        counts = tally[label.rule]
        if label.verdict == "MISS":
            counts["misses"] += 1
            counts["found"] += match(label, by_key, set()) is not None
            continue
        hit = match(label, by_key, labelled)
        if hit is None:
            counts["gone" if label.verdict == "FP" else "lost"] += 1
        else:
            labelled.add(hit)
            counts[label.verdict] += 1
    return tally, labelled


def print_report(findings: list[Finding], labels: list[Label]) -> None:
    tally, labelled = score(findings, labels)
    total = Counter(f.rule for f in findings)
    unlabelled = Counter(f.rule for f in findings if f not in labelled)
    rules = sorted(set(total) | set(tally))
    print("| rule | findings | labelled | TP | FP | precision | FP labels gone | TP labels lost | misses found |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    sums: Counter = Counter()
    for rule in rules:
        counts = tally[rule]
        judged = counts["TP"] + counts["FP"]
        precision = f"{counts['TP'] / judged:.2f}" if judged else "-"
        misses = f"{counts['found']}/{counts['misses']}" if counts["misses"] else "-"
        print(
            f"| {rule} | {total[rule]} | {judged} | {counts['TP']} | {counts['FP']} | {precision} | "
            f"{counts['gone']} | {counts['lost']} | {misses} |"
        )
        sums.update(counts)
    judged = sums["TP"] + sums["FP"]
    print(
        f"| all | {sum(total.values())} | {judged} | {sums['TP']} | {sums['FP']} | "
        f"{sums['TP'] / judged if judged else 0:.2f} | {sums['gone']} | {sums['lost']} | "
        f"{sums['found']}/{sums['misses']} |"
    )
    print(f"\nfindings with no label: {sum(unlabelled.values())} of {sum(total.values())}", end="")
    print(" (" + ", ".join(f"{rule} {count}" for rule, count in sorted(unlabelled.items())) + ")")
    if sums["misses"]:
        print(f"misses found: {sums['found']} of {sums['misses']} ({sums['found'] / sums['misses']:.2f})")
    print_packages(findings)


def print_packages(findings: list[Finding]) -> None:
    per_package: dict[str, Counter] = defaultdict(Counter)
    for finding in findings:
        per_package[finding.package][finding.rule] += 1
    rules = sorted({f.rule for f in findings})
    print("\n| package | " + " | ".join(rules) + " |")
    print("| --- | " + " | ".join("---" for _ in rules) + " |")
    for package in PACKAGES:
        print(f"| {package} | " + " | ".join(str(per_package[package][rule]) for rule in rules) + " |")
    contract = sum(n for rule, n in per_package["albucore"].items() if rule.startswith(CONTRACT_PREFIX))
    print(f"\nalbucore {PACKAGES['albucore']}: {contract} TPL001-TPL008 findings")


def print_sample(findings: list[Finding], labels: list[Label], size: int, seed: int) -> None:
    """Up to ``size`` unlabelled findings per rule and package, spread over files, for labelling."""
    _, labelled = score(findings, labels)
    picker = random.Random(seed)
    groups: dict[tuple[str, str], list[Finding]] = defaultdict(list)
    for finding in findings:
        if finding not in labelled:
            groups[(finding.package, finding.rule)].append(finding)
    print(f"\nsample (seed {seed}, up to {size} per rule and package):")
    for (package, rule), group in sorted(groups.items()):
        by_file: dict[str, list[Finding]] = defaultdict(list)
        for finding in group:
            by_file[finding.path].append(finding)
        files = sorted(by_file)
        picker.shuffle(files)
        chosen: list[Finding] = []
        while len(chosen) < size and any(by_file[f] for f in files):
            for path in files:  # one per file per round, so no single file dominates the sample
                if by_file[path] and len(chosen) < size:
                    chosen.append(by_file[path].pop(picker.randrange(len(by_file[path]))))
        for finding in chosen:
            snippet = finding.source[:SNIPPET_LENGTH].replace("\t", " ")
            print("\t".join((package, finding.path, str(finding.line), rule, snippet, finding.message)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_tool = shutil.which("torchperf-lint", path=str(Path(sys.executable).parent)) or "torchperf-lint"
    parser.add_argument("--tool", default=default_tool, help="the torchperf-lint executable to measure")
    parser.add_argument("--cache-dir", type=Path, default=CACHE, help="where wheels are downloaded and unpacked")
    parser.add_argument("--labels", type=Path, default=LABELS, help="the labelled sample (TSV)")
    parser.add_argument("--sample", type=int, default=0, help="print up to N unlabelled findings per rule")
    parser.add_argument("--seed", type=int, default=13, help="seed for --sample")
    args = parser.parse_args(argv)
    findings: list[Finding] = []
    for package, version in PACKAGES.items():
        root = fetch(package, version, args.cache_dir)
        found = lint(args.tool, package, root)
        files = sum(1 for _ in root.rglob("*.py"))
        print(f"{package} {version}: {files} files, {len(found)} findings")
        findings.extend(found)
    labels = read_labels(args.labels)
    verdicts = Counter(label.verdict for label in labels)
    print(f"labels: {len(labels)} rows, " + ", ".join(f"{v} {verdicts[v]}" for v in VERDICTS) + "\n")
    print_report(findings, labels)
    if args.sample:
        print_sample(findings, labels, args.sample, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
