"""``handoff check`` on hand-made results and a small kernel source: each check code at its exact line."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from torchperf_lint.reference_kernels.bench.provenance import source_sha256
from torchperf_lint.reference_kernels.handoff import CHECKS, load_inputs, render_handoff, verify
from torchperf_lint.reference_kernels.handoff.sources import EvidenceSyntaxError, parse_evidence, scan

from .handoff_results import candidate, must_list, results

ROUTERS = """from .limits import PLANE_MIN as PLANE_LIMIT

#: Batches of at least this many fold.
#: Evidence for 2: fold ahead of naive in fast;
#:   fold ahead of batched-3d in fast@1
FOLD_MIN = 2
UNRELATED = 7


def _should_fold(batch):
    return batch >= FOLD_MIN


def route(work, batch):  # torchperf: prevalidated
    if _should_fold(batch):  # Route: fold
        return work
    if batch > PLANE_LIMIT:
        return work
    return work  # Route: general-3d
"""
LIMITS = """#: Evidence for 3: fold ahead of naive in nowhere
PLANE_MIN = 3
"""
NOTES = "## Removed work\n\nThe mask pass.\n\n## Follow-ups\n\n- none left\n"


def lines_of(text: str, needle: str) -> int:
    return next(number for number, line in enumerate(text.splitlines(), start=1) if needle in line)


@pytest.fixture
def kernel(tmp_path: Path) -> Path:
    folder = tmp_path / "kernel"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "routers.py").write_text(ROUTERS)
    (folder / "limits.py").write_text(LIMITS.replace("in nowhere", "in fast"))
    return folder


def sources(folder: Path) -> dict[str, str]:
    return {name: source_sha256(folder / name) for name in ("__init__.py", "routers.py", "limits.py")}


def write(tmp_path: Path, kernel: Path, data: dict | None = None, notes: str = NOTES) -> Path:
    """Results, notes and their faithful render in ``tmp_path/results``; the report's path."""
    data = data or results(sources=sources(kernel))
    folder = tmp_path / "results"
    folder.mkdir(exist_ok=True)
    (folder / "bench-full.json").write_text(json.dumps(data))
    (folder / "notes.md").write_text(notes)
    report = folder / "HANDOFF.md"
    report.write_text(render_handoff(data, notes))
    return report


def found(report: Path, kernel: Path) -> list[tuple[str, int, str]]:
    outcome = verify(load_inputs(report, None, None, kernel))
    return [(Path(f.path).name, f.line, f.code) for f in outcome.failures]


def test_a_faithful_report_passes_and_says_what_was_verified(tmp_path, kernel):
    report = write(tmp_path, kernel, results(sources=sources(kernel), threads=[1], cores=1))
    outcome = verify(load_inputs(report, None, None, kernel))
    assert outcome.failures == []
    assert outcome.summary("HANDOFF.md") == (
        "HANDOFF.md: verified 10 sections present; it equals the render of "
        f"{report.parent / 'bench-full.json'} and {report.parent / 'notes.md'}; 3 source hashes current; "
        "1 region behind naive or a peer listed as regressions; threads 1 (1 core) for 2 regions; "
        "4 timed rivals agreed with the public call; no placeholders; "
        "2 routing thresholds backed by 3 region claims; 2 routes covered; 4 probe counts add up."
    )


def test_the_thresholds_are_the_constants_predicates_read_or_routers_compare(kernel):
    scanned = scan(kernel)
    assert [(t.name, t.path.name, t.line, t.value) for t in scanned.thresholds] == [
        ("PLANE_MIN", "limits.py", 2, "3"),  # compared in a router through an aliased import
        ("FOLD_MIN", "routers.py", 6, "2"),  # read by a `_should_*` predicate; UNRELATED is neither
    ]
    assert [(m.name, m.line) for m in scanned.routes] == [("fold", 15), ("general-3d", 19)]


def test_the_evidence_grammar():
    evidence = parse_evidence(" for 0.5: fold ahead of naive in a, b@2; plane ahead of scipy in c", 4)
    assert evidence.value == "0.5" and evidence.line == 4
    assert [(c.route, c.candidate, c.regions) for c in evidence.claims] == [
        ("fold", "naive", (("a", None), ("b", 2))),
        ("plane", "scipy", (("c", None),)),
    ]
    with pytest.raises(EvidenceSyntaxError, match="`fold beats naive in a` is not"):
        parse_evidence(" for 2: fold beats naive in a", 1)
    with pytest.raises(EvidenceSyntaxError, match="evidence must read"):
        parse_evidence(": a, b", 1)


def test_hand_edits_and_a_false_none_under_regressions(tmp_path, kernel):
    report = write(tmp_path, kernel)
    text = report.read_text()
    listed = "- `slow` 8x8x8, 1 thr: public/naive 1.20; `per-item-3d` at 0.50 of public"
    report.write_text(text.replace(listed, "None."))
    line = lines_of(text, listed)
    assert found(report, kernel) == [("HANDOFF.md", line, "HC002"), ("HANDOFF.md", line, "HC004")]
    failures = verify(load_inputs(report, None, None, kernel)).failures
    assert failures[0].message.startswith("reads 'None.' where the render of ")
    assert (
        failures[1].message
        == "`slow` 8x8x8, 1 thr has public/naive 1.20, not ahead of naive, but is not under Regressions"
    )


def test_missing_and_empty_sections(tmp_path, kernel):
    report = write(tmp_path, kernel, notes="## Removed work\n\nThe mask pass.\n")
    text = report.read_text()
    cut = text[: text.index("## Follow-ups")]
    report.write_text(cut.replace("\nThe mask pass.\n", "\n"))
    removed = lines_of(text, "## Removed work")
    assert found(report, kernel) == [
        ("HANDOFF.md", 1, "HC001"),  # Follow-ups is missing
        ("HANDOFF.md", removed, "HC001"),  # Removed work is empty
        ("HANDOFF.md", removed + 2, "HC002"),  # where the note should be
        ("HANDOFF.md", len(report.read_text().splitlines()), "HC002"),  # the report's last line: the rest is gone
    ]


def test_stale_results_name_every_changed_and_missing_file(tmp_path, kernel):
    report = write(tmp_path, kernel)
    (kernel / "routers.py").write_text(ROUTERS.replace("FOLD_MIN = 2", "FOLD_MIN = 8"))
    (kernel / "__init__.py").unlink()
    line = lines_of(report.read_text(), "Sources measured:")
    assert found(report, kernel) == [
        ("HANDOFF.md", line, "HC003"),
        ("HANDOFF.md", line, "HC003"),
        ("routers.py", 6, "HC008"),
    ]
    messages = [f.message for f in verify(load_inputs(report, None, None, kernel)).failures]
    assert messages[0] == f"__init__.py was measured but is not in {kernel}: re-run the benchmark"
    assert messages[1].startswith("routers.py changed since the run (code sha256 ")
    assert messages[2] == (
        "FOLD_MIN is 8, but its evidence was measured for 2: "
        "benchmark the new value and cite the regions that chose it"
    )


def test_a_thread_matrix_without_the_core_count(tmp_path, kernel):
    report = write(tmp_path, kernel, results(sources=sources(kernel), cores=2))
    line = lines_of(report.read_text(), "Threads: 1.")
    outcome = verify(load_inputs(report, None, None, kernel))
    assert [(f.line, f.code, f.message) for f in outcome.failures] == [
        (line, "HC005", "no results at 2 threads (the machine's core count) for 2 of 2 regions: fast, slow")
    ]


def test_a_rival_timed_without_a_passed_agreement_check(tmp_path, kernel):
    data = results(sources=sources(kernel))
    data["regions"][0]["candidates"][2] = candidate("batched-3d", 8.0, agreement="failed")
    del data["regions"][1]["candidates"][1]["agreement"]
    report = write(tmp_path, kernel, data)
    text, source = report.read_text(), report.parent / "bench-full.json"
    outcome = verify(load_inputs(report, None, None, kernel))
    assert [(f.line, f.code, f.message) for f in outcome.failures] == [
        (
            lines_of(text, "| `fast` 8x8x8, 1 thr | batched-3d |"),
            "HC006",
            f"`batched-3d` in `fast` 8x8x8, 1 thr was timed with agreement 'failed' in {source}",
        ),
        (
            lines_of(text, "| `slow` 8x8x8, 1 thr | naive |"),
            "HC006",
            f"`naive` in `slow` 8x8x8, 1 thr was timed with no agreement check in {source}",
        ),
    ]


def test_placeholders_in_any_section(tmp_path, kernel):
    report = write(tmp_path, kernel, notes=NOTES + "\n## Regressions\n\nTBD after the next run. <!-- fill -->\n")
    line = lines_of(report.read_text(), "TBD after")
    assert found(report, kernel) == [("HANDOFF.md", line, "HC007")]


@pytest.mark.parametrize(
    ("limits", "message"),
    [
        ("PLANE_MIN = 3\n", "routing threshold PLANE_MIN names no benchmark evidence: add `#: Evidence for 3: "),
        ("#: Evidence: slow\nPLANE_MIN = 3\n", "PLANE_MIN: evidence must read `#: Evidence for VALUE: "),
        (LIMITS, "PLANE_MIN: cites region nowhere, which is not in "),
        (LIMITS.replace("nowhere", "slow"), "PLANE_MIN: cites slow for route fold, which it never takes in "),
        ("#: Evidence for 3: general-3d ahead of naive in slow\nPLANE_MIN = 3\n",
         "PLANE_MIN: general-3d is not ahead of naive in `slow` 8x8x8, 1 thr (0.83 of public)"),
        ("#: Evidence for 3: general-3d ahead of opencv in slow\nPLANE_MIN = 3\n",
         "PLANE_MIN: cites opencv in `slow` 8x8x8, 1 thr, where it was not timed"),
    ],
)  # fmt: skip
def test_threshold_evidence_must_exist_and_hold(tmp_path, kernel, limits, message):
    (kernel / "limits.py").write_text(limits)
    report = write(tmp_path, kernel)
    outcome = verify(load_inputs(report, None, None, kernel))
    assert [(Path(f.path).name, f.code) for f in outcome.failures] == [("limits.py", "HC008")]
    assert outcome.failures[0].message.startswith(message)
    assert outcome.failures[0].line == 1  # the evidence comment, or the constant when it has none


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("allocated_bytes", 14400, "allocated_bytes 14,400 is not its buffers' 14,336 plus 16 inside operations"),
        ("buffers", [["aten.empty", 6144, [8, 8, 8], "float32"], ["aten.grid_sampler_3d", 8192, [2048],
                     "float32"]],
         "the aten.empty buffer of 6,144 bytes does not hold float32 (8, 8, 8)"),
        ("retained_bytes", 4096, "retained_bytes 4,096 is not the result's 8,192 bytes"),
        ("full_size_copies", ["aten.clone"], "the full-size copy aten.clone is not among the full-size passes"),
    ],
)  # fmt: skip
def test_a_doctored_probe_count_fails_at_its_row(tmp_path, kernel, field, value, message):
    data = results(sources=sources(kernel))
    data["regions"][0]["candidates"][0]["probe"][field] = value
    report = write(tmp_path, kernel, data)
    outcome = verify(load_inputs(report, None, None, kernel))
    line = lines_of(report.read_text(), "| `fast` | 8x8x8 | 1 | fold |")
    assert [(f.line, f.code) for f in outcome.failures] == [(line, "HC010")]
    assert outcome.failures[0].message == (
        f"`public` in `fast` 8x8x8, 1 thr: {message} in {report.parent / 'bench-full.json'}"
    )


def test_every_marked_route_is_selected_and_every_selected_route_is_marked(tmp_path, kernel):
    (kernel / "routers.py").write_text(
        ROUTERS.replace("return work  # Route: general-3d", "return work  # Route: 2d")
    )
    report = write(tmp_path, kernel)
    selected = lines_of(report.read_text(), "| general-3d |")
    outcome = verify(load_inputs(report, None, None, kernel))
    unmarked = f"route general-3d in the results is marked nowhere in {kernel} (`# Route: general-3d`)"
    unselected = f"route 2d was selected in no benchmark region of {report.parent / 'bench-full.json'}"
    assert [(Path(f.path).name, f.line, f.code, f.message) for f in outcome.failures] == [
        ("HANDOFF.md", selected, "HC009", unmarked),
        ("routers.py", 19, "HC009", unselected),
    ]


def test_every_code_is_documented():
    benchmarks = (Path(__file__).parents[2] / "reference_kernels" / "BENCHMARKS.md").read_text()
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    assert sorted(CHECKS) == [f"HC{n:03d}" for n in range(1, 11)]
    for code in CHECKS:
        assert f"`{code}`" in benchmarks and f"`{code}`" in readme


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "torchperf_lint", "handoff", "check", *args], capture_output=True,
                          text=True, cwd=cwd)  # fmt: skip


def test_the_command_prints_one_line_per_failure_and_exits_1(tmp_path, kernel):
    report = write(tmp_path, kernel, results(sources=sources(kernel), cores=2))
    result = cli("HANDOFF.md", "--source", str(kernel), cwd=report.parent)
    line = lines_of(report.read_text(), "Threads: 1.")
    assert result.returncode == 1
    message = "HC005 no results at 2 threads (the machine's core count) for 2 of 2 regions: fast, slow"
    assert result.stdout == f"HANDOFF.md:{line}: {message}\n"


def test_the_command_prints_one_summary_line_and_exits_0(tmp_path, kernel):
    report = write(tmp_path, kernel, results(sources=sources(kernel), cores=1))
    result = cli(str(report), "--results", str(report.parent / "bench-full.json"), "--source", str(kernel))
    assert result.returncode == 0, result.stdout
    assert len(result.stdout.splitlines()) == 1 and result.stdout.startswith(f"{report}: verified 10 sections")


def test_unreadable_inputs_exit_2_with_the_reason(tmp_path, kernel):
    report = write(tmp_path, kernel)
    (report.parent / "bench-full.json").write_text('{"schema": ')
    broken = cli(str(report), "--source", str(kernel))
    assert broken.returncode == 2 and "bench-full.json:1:12: invalid JSON: Expecting value" in broken.stderr
    (report.parent / "bench-full.json").unlink()
    alone = cli(str(report), "--source", str(kernel))
    assert (
        alone.returncode == 2 and "no bench-full.json (or single results JSON) next to the report" in alone.stderr
    )
    old = tmp_path / "old.json"
    old.write_text(json.dumps({**results(), "schema": "torchperf-bench/1"}))
    assert "results schema must be 'torchperf-bench/4'" in cli(str(report), "--results", str(old)).stderr
    assert "Traceback" not in broken.stderr + alone.stderr


def test_source_hashes_follow_the_code_not_its_comments(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("LIMIT = 2  # chosen by a benchmark\n")
    before = source_sha256(module)
    module.write_text("#: Evidence for 2: fold ahead of naive in a\nLIMIT = 2  # re-cited\n\n# trailing\n")
    assert source_sha256(module) == before
    module.write_text("LIMIT = 3  # chosen by a benchmark\n")
    assert source_sha256(module) != before
    module.write_bytes(b"LIMIT = '\n")  # does not tokenize: the bytes are hashed
    assert len(source_sha256(module)) == 64


COMMITTED = Path(__file__).parents[2] / "reference_kernels" / "results"


def test_the_committed_report_passes_the_full_check():
    outcome = verify(load_inputs(COMMITTED / "HANDOFF.md", None, None, None))
    assert [str(failure) for failure in outcome.failures] == []


def test_a_doctored_copy_of_the_committed_report_fails_with_the_expected_codes(tmp_path):
    for name in ("HANDOFF.md", "bench-full.json", "notes.md"):
        shutil.copy(COMMITTED / name, tmp_path / name)
    report = (tmp_path / "HANDOFF.md").read_text()
    data = json.loads((tmp_path / "bench-full.json").read_text())
    regressions = report.index("## Regressions\n")
    rejected = report.index("## Rejected regions\n")
    doctored = (
        report[:regressions] + "## Regressions\n\nNone.\n\n\n" + report[rejected:]  # a false "None."
    ).replace("Threads: 1, 2.", "Threads: 1.")  # the core count dropped from the matrix
    doctored = doctored.rstrip("\n") + "\n- TODO: rerun on a quiet machine\n"
    (tmp_path / "HANDOFF.md").write_text(doctored)
    first = data["regions"][0]
    rival = next(c for c in first["candidates"] if c["name"] == "naive")
    del rival["agreement"]  # a rival timed without an agreement check
    data["provenance"]["sources"]["routers.py"] = "0" * 64  # results of other code
    # one byte fewer allocated than listed, where that keeps the peak below what was allocated
    counted = next(row for row in data["regions"] if _public_peak_below_allocated(row))
    counted["candidates"][0]["probe"]["allocated_bytes"] -= 1
    (tmp_path / "bench-full.json").write_text(json.dumps(data))
    slow = [row for row in data["regions"] if must_list(row)]
    none, todo = _line(doctored, "None."), _line(doctored, "- TODO: rerun")
    threads, stale = _line(doctored, "Threads: 1."), _line(doctored, "Sources measured:")
    where = f"| `{first['id']}` {'x'.join(map(str, first['params']['size']))}, {first['threads']} thr | naive |"
    found = [(f.line, f.code) for f in verify(load_inputs(tmp_path / "HANDOFF.md", None, None, None)).failures]
    size = "x".join(map(str, counted["params"]["size"]))
    counts = _line(doctored, f"| `{counted['id']}` | {size} | {counted['threads']} |")
    expected = [
        (stale, "HC003"),
        (counts, "HC010"),
        (_line(doctored, where), "HC006"),
        (threads, "HC002"),
        (threads, "HC005"),
        (none, "HC002"),
        *[(none, "HC004")] * len(slow),
        (todo, "HC002"),
        (todo, "HC007"),
    ]
    assert found == sorted(expected)


def _public_peak_below_allocated(row: dict) -> bool:
    counts = row["candidates"][0]["probe"]
    return counts["peak_bytes"] < counts["allocated_bytes"]


def _line(text: str, needle: str) -> int:
    return next(number for number, line in enumerate(text.splitlines(), start=1) if needle in line)
