"""``handoff check``: prove that a handoff report tells the truth about its results and its source.

Each check has a stable code (documented in ``BENCHMARKS.md``). A failure points at the report line
it concerns, or at the source line for a threshold or route marker in the kernel code. Needs no
torch: it reads JSON, Markdown and source text.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..bench.provenance import source_sha256
from .inputs import Inputs
from .markdown import Section, sections
from .render import PEER_TIE, SECTIONS, Row, render_handoff, rows_of
from .sources import KernelSources, same_value, scan

#: Code -> what the check proves. Stable: new checks get new codes.
CHECKS = {
    "HC001": "every required section is present and has content",
    "HC002": "the report equals the render of its results and notes (no hand edits)",
    "HC003": "every source hash in the results' provenance matches the current source (not stale)",
    "HC004": "every region where the public call is not ahead of the naive path, or a peer beats it by more than"
    " 3%, is listed under Regressions",
    "HC005": "the thread matrix covers 1 thread and the recorded core count",
    "HC006": "every timed rival carries a passed agreement check",
    "HC007": "no section holds TODO, TBD, FIXME or template leftovers",
    "HC008": "every routing threshold names benchmark regions that exist and show the claimed direction",
    "HC009": "every route the routers can take was selected in at least one region",
    "HC010": "every probe count in the results adds up: bytes to the buffers listed, buffers to their shapes,"
    " copies to passes, and what the call still held to the size of its result",
}
#: Bytes per element of the dtypes a probe records.
_ITEMSIZE = {"bool": 1, "uint8": 1, "int8": 1, "float16": 2, "bfloat16": 2, "int32": 4, "float32": 4, "int64": 8,
             "float64": 8}  # fmt: skip
_PLACEHOLDER = re.compile(r"\b(TODO|TBD|FIXME)\b|\{\{|\}\}|\{%|%\}|<!--")
_SOURCES_LINE = re.compile(r"^Sources measured:")
_THREADS_LINE = re.compile(r"^Threads: (?P<counts>[\d, ]+)\.")
#: Longest quoted line in a message.
_QUOTE = 90


@dataclass(frozen=True, order=True)
class Failure:
    path: str
    line: int
    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.code} {self.message}"


@dataclass
class Verification:
    """The failures, and what was proven (for the one-line summary when there are none)."""

    failures: list[Failure] = field(default_factory=list)
    proven: list[str] = field(default_factory=list)

    def summary(self, report: str) -> str:
        return f"{report}: verified " + "; ".join(self.proven) + "."


def verify(inputs: Inputs) -> Verification:
    """Every check on ``inputs``; the results must already be in the documented schema."""
    outcome = Verification()
    report = sections(inputs.report_text)
    rows = rows_of(inputs.results)
    kernel = scan(inputs.source)
    steps = (
        _sections_present(inputs, report),
        _not_hand_edited(inputs),
        _not_stale(inputs, report),
        _regressions_listed(inputs, report, rows),
        _threads_covered(inputs, report, rows),
        _rivals_agreed(inputs, report, rows),
        _no_placeholders(inputs, report),
        _thresholds_evidenced(inputs, kernel, rows),
        _routes_covered(inputs, report, kernel, rows),
        _counts_add_up(inputs, report, rows),
    )
    for failures, proof in steps:
        outcome.failures += failures
        outcome.proven.append(proof)
    outcome.failures.sort(key=lambda f: (f.path != inputs.report, f.path, f.line, f.code))
    return outcome


Step = tuple[list[Failure], str]


def _sections_present(inputs: Inputs, report: dict[str, Section]) -> Step:
    failures = []
    for title in SECTIONS:
        section = report.get(title.lower())
        if section is None:
            failures.append(Failure(inputs.report, 1, "HC001", f"missing section: {title}"))
        elif not section.has_content:
            failures.append(Failure(inputs.report, section.line, "HC001", f"empty section: {title}"))
    return failures, f"{len(SECTIONS)} sections present"


def _not_hand_edited(inputs: Inputs) -> Step:
    """One failure per differing block, at its first report line, quoting both sides."""
    rendered = render_handoff(inputs.results, inputs.notes).splitlines()
    written = inputs.report_text.splitlines()
    source = inputs.results_name + (f" and {inputs.notes_name}" if inputs.notes_name else "")
    failures = []
    matcher = difflib.SequenceMatcher(a=written, b=rendered, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "insert":
            message = f"the render of {source} has {_quoted(rendered[j1])} here, missing from the report"
        elif tag == "delete":
            message = f"{_quoted(written[i1])} is not in the render of {source}"
        else:
            message = f"reads {_quoted(written[i1])} where the render of {source} has {_quoted(rendered[j1])}"
        extent = max(i2 - i1, j2 - j1)
        if extent > 1:
            message += f" ({extent} lines differ here)"
        failures.append(Failure(inputs.report, min(i1 + 1, max(len(written), 1)), "HC002", message))
    return failures, f"it equals the render of {source}"


def _not_stale(inputs: Inputs, report: dict[str, Section]) -> Step:
    line = _line_matching(inputs.report_text, _SOURCES_LINE)
    hashes = inputs.results["provenance"]["sources"]
    failures = []
    for name, recorded in sorted(hashes.items()):
        path = inputs.source / name
        if not path.is_file():
            message = f"{name} was measured but is not in {inputs.source_name}: re-run the benchmark"
        elif (current := source_sha256(path)) != recorded:
            message = (
                f"{name} changed since the run (code sha256 {recorded[:12]} in {inputs.results_name}, "
                f"{current[:12]} in {inputs.source_name}): re-run the benchmark"
            )
        else:
            continue
        failures.append(Failure(inputs.report, line, "HC003", message))
    if not hashes:
        failures.append(Failure(inputs.report, line, "HC003", "the results' provenance hashes no source file"))
    return failures, f"{len(hashes)} source hashes current"


def _regressions_listed(inputs: Inputs, report: dict[str, Section], rows: list[Row]) -> Step:
    section = report.get("regressions")
    listed = section.text if section else ""
    line = section.first_content_line() if section else 1
    slow = [(row, _why_a_regression(row)) for row in rows]
    slow = [(row, why) for row, why in slow if why]
    failures = [
        Failure(inputs.report, line, "HC004", f"{row.where} has {why}, but is not under Regressions")
        for row, why in slow
        if row.where not in listed
    ]
    return (
        failures,
        f"{len(slow)} region{'s' if len(slow) != 1 else ''} behind naive or a peer listed as regressions",
    )


def _why_a_regression(row: Row) -> str:
    """What makes ``row`` a regression the report must list, or an empty string."""
    reasons = [f"public/naive {row.ratio:.2f}, not ahead of naive"] if row.ratio >= 1.0 else []
    reasons += [
        f"public/{peer['name']} {row.public_over(peer):.2f}, behind a peer"
        for peer in row.peers
        if row.public_over(peer) > PEER_TIE
    ]
    return "; ".join(reasons)


def _threads_covered(inputs: Inputs, report: dict[str, Section], rows: list[Row]) -> Step:
    cores = inputs.results["provenance"]["cores"]
    required = sorted({1, cores})
    section = report.get("thread and benchmark matrix")
    stated_line = section.find(_THREADS_LINE) if section else None
    line = stated_line or (section.line if section else 1)
    failures = []
    regions = sorted({row.raw["id"] for row in rows})
    for threads in required:
        missing = [rid for rid in regions if not any(r.raw["id"] == rid and r.threads == threads for r in rows)]
        if missing:
            what = "the machine's core count" if threads == cores else "one thread"
            failures.append(
                Failure(
                    inputs.report,
                    line,
                    "HC005",
                    f"no results at {threads} thread{'s' if threads != 1 else ''} ({what}) for "
                    f"{len(missing)} of {len(regions)} regions: {_listed(missing)}",
                )
            )
    if section is not None and not failures:
        stated = set()
        if stated_line is not None:
            match = _THREADS_LINE.match(dict(section.body)[stated_line])
            stated = {int(n) for n in match["counts"].replace(" ", "").split(",") if n} if match else set()
        if not set(required) <= stated:
            counts = " and ".join(map(str, required))
            message = f"the thread and benchmark matrix does not state the thread counts {counts}"
            failures.append(Failure(inputs.report, line, "HC005", message))
    counts = " and ".join(map(str, required))
    return failures, f"threads {counts} ({cores} core{'s' if cores != 1 else ''}) for {len(regions)} regions"


def _rivals_agreed(inputs: Inputs, report: dict[str, Section], rows: list[Row]) -> Step:
    section = report.get("backends and torch-specific candidates considered")
    failures, timed = [], 0
    for row in rows:
        for candidate in row.raw["candidates"]:
            if candidate["name"] == "public" or candidate["status"] != "ok":
                continue
            timed += 1
            if candidate.get("agreement") == "passed":
                continue
            pattern = re.compile(re.escape(f"| {row.where} | {candidate['name']} |"))
            line = (section.find(pattern) or section.line) if section else 1
            recorded = candidate.get("agreement")
            state = f"agreement {recorded!r}" if recorded is not None else "no agreement check"
            message = f"`{candidate['name']}` in {row.where} was timed with {state} in {inputs.results_name}"
            failures.append(Failure(inputs.report, line, "HC006", message))
    return failures, f"{timed} timed rivals agreed with the public call"


def _no_placeholders(inputs: Inputs, report: dict[str, Section]) -> Step:
    failures = []
    for section in report.values():
        for number, text in section.body:
            match = _PLACEHOLDER.search(text)
            if match:
                message = f"placeholder {match.group(0)!r} left in section {section.title}"
                failures.append(Failure(inputs.report, number, "HC007", message))
    return failures, "no placeholders"


def _thresholds_evidenced(inputs: Inputs, kernel: KernelSources, rows: list[Row]) -> Step:
    failures, claims = [], 0
    for threshold in kernel.thresholds:
        where = _source_path(inputs, threshold.path)
        evidence = threshold.evidence
        if evidence is None:
            message = threshold.problem or (
                f"routing threshold {threshold.name} names no benchmark evidence: "
                f"add `#: Evidence for {threshold.value}: ROUTE ahead of CANDIDATE in REGIONS` above it"
            )
            failures.append(Failure(where, threshold.comment_line or threshold.line, "HC008", message))
            continue
        if not same_value(evidence.value, threshold.value):
            message = (
                f"{threshold.name} is {threshold.value}, but its evidence was measured for {evidence.value}: "
                "benchmark the new value and cite the regions that chose it"
            )
            failures.append(Failure(where, threshold.line, "HC008", message))
        for claim in evidence.claims:
            for region, threads in claim.regions:
                claims += 1
                for problem in _claim_problems(inputs, rows, claim.route, claim.candidate, region, threads):
                    failures.append(Failure(where, evidence.line, "HC008", f"{threshold.name}: {problem}"))
    count = len(kernel.thresholds)
    return failures, f"{count} routing threshold{'s' if count != 1 else ''} backed by {claims} region claims"


def _claim_problems(
    inputs: Inputs, rows: list[Row], route: str, candidate: str, region: str, threads: int | None
) -> Iterator[str]:
    at = f"@{threads}" if threads is not None else ""
    of_region = [row for row in rows if row.raw["id"] == region]
    if not of_region:
        yield f"cites region {region}, which is not in {inputs.results_name}"
        return
    taking = [row for row in of_region if row.raw["route"] == route and threads in (None, row.threads)]
    if not taking:
        yield f"cites {region}{at} for route {route}, which it never takes in {inputs.results_name}"
        return
    for row in taking:
        rival = next((c for c in row.raw["candidates"] if c["name"] == candidate), None)
        if rival is None or rival["status"] != "ok":
            yield f"cites {candidate} in {row.where}, where it was not timed"
        elif not row.public["median_ms"] < rival["median_ms"]:
            yield f"{route} is not ahead of {candidate} in {row.where} ({row.relative(rival):.2f} of public)"


def _routes_covered(inputs: Inputs, report: dict[str, Section], kernel: KernelSources, rows: list[Row]) -> Step:
    selected = {row.raw["route"] for row in rows}
    declared = {marker.name for marker in kernel.routes}
    failures = [
        Failure(
            _source_path(inputs, marker.path),
            marker.line,
            "HC009",
            f"route {marker.name} was selected in no benchmark region of {inputs.results_name}",
        )
        for marker in kernel.routes
        if marker.name not in selected
    ]
    section = report.get("selected route")
    for route in sorted(selected - declared):
        line = (section.find(re.compile(rf"^\| {re.escape(route)} \|")) or section.line) if section else 1
        message = f"route {route} in the results is marked nowhere in {inputs.source_name} (`# Route: {route}`)"
        failures.append(Failure(inputs.report, line, "HC009", message))
    return failures, f"{len(declared)} routes covered"


def _counts_add_up(inputs: Inputs, report: dict[str, Section], rows: list[Row]) -> Step:
    """Probe counts are exact, so each one follows from the others and from the region's parameters:
    a count edited by hand breaks one of these sums."""
    section = report.get("allocation and copy changes")
    failures, checked = [], 0
    for row in rows:
        size = "x".join(map(str, row.raw["params"]["size"]))
        needle = re.compile(re.escape(f"| `{row.raw['id']}` | {size} | {row.threads} |"))
        for candidate in row.raw["candidates"]:
            counts = candidate.get("probe")
            if counts is None:
                continue
            checked += 1
            for problem in _count_problems(counts, _result_bytes(row.raw["params"])):
                line = (section.find(needle) or section.line) if section else 1
                message = f"`{candidate['name']}` in {row.where}: {problem} in {inputs.results_name}"
                failures.append(Failure(inputs.report, line, "HC010", message))
    return failures, f"{checked} probe counts add up"


def _count_problems(counts: dict, result_bytes: int) -> Iterator[str]:
    listed = sum(buffer[1] for buffer in counts["buffers"])
    if counts["allocated_bytes"] != listed + counts["internal_bytes"]:
        yield (
            f"allocated_bytes {counts['allocated_bytes']:,} is not its buffers' {listed:,} plus "
            f"{counts['internal_bytes']:,} inside operations"
        )
    for op, nbytes, shape, dtype in counts["buffers"]:
        elements = 1
        for extent in shape:
            elements *= extent
        if nbytes != elements * _ITEMSIZE.get(dtype, 0):
            yield f"the {op} buffer of {nbytes:,} bytes does not hold {dtype} {tuple(shape)}"
    if not counts["retained_bytes"] <= counts["peak_bytes"] <= counts["allocated_bytes"]:
        yield "the bytes still held, the peak and the bytes allocated are not in increasing order"
    if counts["retained_bytes"] != result_bytes:
        yield f"retained_bytes {counts['retained_bytes']:,} is not the result's {result_bytes:,} bytes"
    passes = list(counts["full_size_passes"])
    for copy in counts["full_size_copies"]:
        if copy not in passes:
            yield f"the full-size copy {copy} is not among the full-size passes"
            break
        passes.remove(copy)


def _result_bytes(params: dict) -> int:
    """Bytes of the result a region's call returns: batch and channels of the input, the output size."""
    shape, layout = params["shape"], params["layout"]
    batch = shape[0] if layout in ("NCDHW", "NDHWC") else 1
    channels = shape[{"CDHW": 0, "NCDHW": 1, "DHWC": 3, "NDHWC": 4}[layout]]
    depth, height, width = params["size"]
    return batch * channels * depth * height * width * _ITEMSIZE[params["dtype"]]


def _source_path(inputs: Inputs, path: Path) -> str:
    return str(Path(inputs.source_name) / path.relative_to(inputs.source))


def _line_matching(text: str, pattern: re.Pattern[str]) -> int:
    return next((number for number, line in enumerate(text.splitlines(), start=1) if pattern.search(line)), 1)


def _quoted(line: str) -> str:
    return repr(line if len(line) <= _QUOTE else line[: _QUOTE - 3] + "...")


def _listed(names: list[str], most: int = 4) -> str:
    return ", ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "")
