"""Turn benchmark results (schema ``torchperf-bench/4``) and reviewer notes into the handoff Markdown.

Figures come from the JSON, never from the notes; the notes carry what a benchmark cannot say (what
was removed, why a faster rival was still not taken, what is left to do).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from importlib import resources

import jinja2

from .markdown import sections

SCHEMA = "torchperf-bench/4"

#: Every handoff has these sections, in this order.
SECTIONS = (
    "Full-path baseline",
    "Selected route",
    "Removed work",
    "Allocation and copy changes",
    "Backends and Torch-specific candidates considered",
    "Thread and benchmark matrix",
    "Correctness and memory evidence",
    "Regressions",
    "Rejected regions",
    "Follow-ups",
)
#: A rival within this factor of the public call is a tie, not a regression.
TIE = 1.05
#: A peer library ahead of the public call by more than this factor is a regression: the spread
#: measured between identical calls taken in turns.
PEER_TIE = 1.03


class ResultsError(ValueError):
    """The results JSON is not in the documented schema."""


@dataclass(frozen=True)
class Row:
    """One benchmark region at one thread count, with the figures the report quotes."""

    raw: dict
    public: dict
    naive: dict

    @property
    def threads(self) -> int:
        return self.raw["threads"]

    @property
    def where(self) -> str:
        """How the report names this row: region id, spatial size and thread count."""
        return f"`{self.raw['id']}` {'x'.join(map(str, self.raw['params']['size']))}, {self.threads} thr"

    @property
    def ratio(self) -> float:
        return self.public["median_ms"] / self.naive["median_ms"]

    @property
    def rivals(self) -> list[dict]:
        return [c for c in self.raw["candidates"] if c["name"] not in ("public", "naive") and not c.get("peer")]

    @property
    def peers(self) -> list[dict]:
        """Timed peer libraries (``--peers``)."""
        return [c for c in self.raw["candidates"] if c.get("peer") and c["status"] == "ok"]

    def candidate(self, name: str) -> dict | None:
        """The timed candidate ``name`` of this row, if there is one."""
        return next((c for c in self.raw["candidates"] if c["name"] == name and c["status"] == "ok"), None)

    def relative(self, candidate: dict) -> float:
        return candidate["median_ms"] / self.public["median_ms"]

    @staticmethod
    def public_over(peer: dict) -> float:
        """Public time over the peer's, from the rounds' paired ratios (below 1: public is faster)."""
        return 1.0 / peer["paired_ratio_to_public"]


def render_handoff(results: dict, notes: str = "") -> str:
    """The handoff Markdown for ``results``, with each ``## Section`` of ``notes`` under its section."""
    rows = rows_of(results)
    environment = jinja2.Environment(
        loader=jinja2.FunctionLoader(_template_source),
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    environment.filters["median"] = lambda values: statistics.median(list(values))
    environment.filters["peer_ratio"] = lambda pair: Row.public_over(pair[1])
    template = environment.get_template("handoff.md.j2")
    peers = [(row, peer) for row in rows for peer in row.peers]
    host_reads: dict[int, list[Row]] = {}
    for row in rows:
        host_reads.setdefault(row.public["probe"]["host_reads"], []).append(row)
    return template.render(
        env=results["environment"],
        provenance=results["provenance"],
        rows=rows,
        routes=_by_route(rows),
        peers=peers,
        peer_names=list(dict.fromkeys(peer["name"] for _, peer in peers)),
        breached=[row for row in rows if row.public["probe"]["breaches"]],
        host_reads=sorted(host_reads.items()),
        peer_tie=PEER_TIE,
        regressions=[
            r
            for r in rows
            if r.ratio >= 1.0
            or any(_beats(r, c) for c in r.rivals if c["backend"] == "torch")
            or any(r.public_over(p) > PEER_TIE for p in r.peers)
        ],
        rejected=[(r, c) for r in rows for c in r.rivals if not _beats(r, c)],
        faster_elsewhere=[(r, c) for r in rows for c in r.rivals if _beats(r, c)],
        notes=parse_notes(notes),
        sections=SECTIONS,
    )


def parse_notes(notes: str) -> dict[str, str]:
    """``## Heading`` blocks of a Markdown notes file, keyed by lower-cased heading."""
    return {key: section.text.strip() for key, section in sections(notes).items()}


def _template_source(name: str) -> str:
    return resources.files(__package__).joinpath("templates", name).read_text(encoding="utf-8")


def rows_of(results: dict) -> list[Row]:
    """The results' regions as rows; a :class:`ResultsError` when they are not in the schema."""
    if results.get("schema") != SCHEMA:
        raise ResultsError(f"results schema must be {SCHEMA!r}, got {results.get('schema')!r}")
    provenance = results.get("provenance")
    if not isinstance(provenance, dict) or not {"command", "cores", "threads", "sources"} <= provenance.keys():
        raise ResultsError("the results lack a provenance block with command, cores, threads and sources")
    rows = []
    for raw in results["regions"]:
        named = {c["name"]: c for c in raw["candidates"] if c["status"] == "ok"}
        if "public" not in named or "naive" not in named:
            raise ResultsError(f"region {raw['id']!r} lacks a timed 'public' or 'naive' candidate")
        if "probe" not in named["public"] or "probe" not in named["naive"]:
            raise ResultsError(f"region {raw['id']!r} lacks the probe counts of 'public' and 'naive'")
        rows.append(Row(raw, named["public"], named["naive"]))
    return rows


def _by_route(rows: list[Row]) -> dict[str, list[Row]]:
    routes: dict[str, list[Row]] = {}
    for row in rows:
        routes.setdefault(row.raw["route"], []).append(row)
    return routes


def _beats(row: Row, candidate: dict) -> bool:
    """Whether a timed rival is clearly faster than the public call in this row."""
    return candidate["status"] == "ok" and row.relative(candidate) * TIE < 1.0
