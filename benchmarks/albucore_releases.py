"""Lint every albucore release with default settings and compare with its known contract breaches.

    python benchmarks/albucore_releases.py [--tool PATH] [--cache-dir DIR]

albucore is the library the performance contract was written for; its releases contain real breaches
that were later fixed: private routers that return tensors computed under ``torch.inference_mode()``
(a caller's backward raises), and checks re-added inside functions whose own docstrings say their
callers validated those properties. ``benchmarks/realcode/albucore-releases.tsv`` records each breach
(confirmed by running the release) and each check that is legitimate (a property the docstring does
not list, a library's result checked after the call), with file and line.

Each release's source distribution (the library and its ``tools/`` scripts, as a team adopting the
linter would run it: no configuration of its own) is linted by the console script. The script prints,
per release, the breaches found out of those recorded, the legitimate checks wrongly flagged, and every
other contract (TPL0xx) finding, and exits 1 when a breach is missed or a legitimate check flagged.
"""

from __future__ import annotations

import argparse
import csv
import shutil
import subprocess
import sys
import tarfile
from collections import defaultdict
from pathlib import Path

from realcode import CACHE, Finding, lint

HERE = Path(__file__).resolve().parent
TRUTH = HERE / "realcode" / "albucore-releases.tsv"
RELEASES = [f"0.2.{n}" for n in (4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15, 16, 18, 20, 21)] + ["0.3.0", "0.3.1"]
#: The rule that must report each kind of breach.
RULE_OF = {
    "inference-escape": "TPL008",
    "revalidation": "TPL005",
    "recorded-autograd": "TPL007",
    "legitimate-check": "TPL005",
}
#: The printed table's column for each kind of truth row.
COLUMN_OF = {
    "inference-escape": "inference escapes found",
    "revalidation": "re-validations found",
    "recorded-autograd": "recorded autograd found",
    "legitimate-check": "legitimate checks flagged",
}


def fetch_sdist(version: str, cache: Path) -> Path:
    """The unpacked source distribution of ``albucore==version`` (its Python files), fetched once."""
    root = cache / "sdist" / f"albucore-{version}"
    if (root / "pyproject.toml").is_file():
        return root
    archives = cache / "sdists"
    archive = archives / f"albucore-{version}.tar.gz"
    if not archive.is_file():
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-q"]
        subprocess.run([*command, "-d", str(archives), f"albucore=={version}"], check=True)
    if root.exists():
        shutil.rmtree(root)
    with tarfile.open(archive) as bundle:
        prefix = f"albucore-{version}/"
        members = [m for m in bundle.getmembers() if m.name.endswith(".py") and m.name.startswith(prefix)]
        for member in members:
            member.name = member.name[len(prefix) :]
        bundle.extractall(root, members, filter="data")
    # Default settings rooted here, whatever configuration the folders above hold.
    (root / "pyproject.toml").write_text("[tool.torchperf-lint]\n", encoding="utf-8")
    return root


def read_truth(path: Path) -> dict[str, list[dict[str, str]]]:
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    by_release: dict[str, list[dict[str, str]]] = defaultdict(list)
    for row in rows:
        by_release[row["release"]].append(row)
    return by_release


def reported(row: dict[str, str], findings: list[Finding]) -> bool:
    rule, line = RULE_OF[row["kind"]], int(row["line"])
    return any(f.rule == rule and f.path == row["path"] and f.line <= line <= f.end_line for f in findings)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_tool = shutil.which("torchperf-lint", path=str(Path(sys.executable).parent)) or "torchperf-lint"
    parser.add_argument("--tool", default=default_tool, help="the torchperf-lint executable to measure")
    parser.add_argument("--cache-dir", type=Path, default=CACHE, help="where releases are downloaded and unpacked")
    args = parser.parse_args(argv)
    truth = read_truth(TRUTH)
    failures = 0
    print("| release | " + " | ".join(COLUMN_OF.values()) + " | other TPL0xx |")
    print("| --- " * (len(COLUMN_OF) + 2) + "|")
    details: list[str] = []
    for version in RELEASES:
        root = fetch_sdist(version, args.cache_dir)
        findings = lint(args.tool, "albucore", root)
        rows = truth.get(version, [])
        counts = {}
        for kind in RULE_OF:
            chosen = [row for row in rows if row["kind"] == kind]
            hits = [row for row in chosen if reported(row, findings)]
            counts[kind] = f"{len(hits)}/{len(chosen)}"
            wrong = hits if kind == "legitimate-check" else [row for row in chosen if row not in hits]
            failures += len(wrong)
            verb = "flagged" if kind == "legitimate-check" else "missed"
            details += [f"{version}: {verb} {kind} {row['path']}:{row['line']} {row['function']}" for row in wrong]
        known = {(RULE_OF[row["kind"]], row["path"], int(row["line"])) for row in rows}
        other = [f for f in findings if f.rule.startswith("TPL0") and (f.rule, f.path, f.line) not in known]
        details += [f"{version}: {f.path}:{f.line}:{f.column}: {f.rule} {f.message}" for f in other]
        print(f"| {version} | " + " | ".join(counts[kind] for kind in RULE_OF) + f" | {len(other)} |")
    print()
    print("\n".join(details) or "no other finding")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
