"""The handoff renderer on hand-made results: exact figures, regressions and rejected candidates."""

from __future__ import annotations

import json

import pytest
from torchperf_lint.reference_kernels.handoff import render_handoff
from torchperf_lint.reference_kernels.handoff.__main__ import main
from torchperf_lint.reference_kernels.handoff.render import ResultsError, parse_notes

from .handoff_results import results

RESULTS = results()


def test_ratios_and_routes_come_from_the_results():
    report = render_handoff(RESULTS)
    assert "| `fast` | NCDHW 4x1x8x8x8 | float32 | 1 | 10.00 ms | 5.00 ms | 0.50 |" in report
    assert "| fold | fast | 1 | 0.50, 0.50 |" in report
    assert "| general-3d | slow | 1 | 1.20, 1.20 |" in report


def test_regressions_name_slow_regions_and_faster_torch_rivals():
    report = render_handoff(RESULTS)
    section = report.split("## Regressions")[1].split("## Rejected regions")[0]
    assert "- `slow` 8x8x8, 1 thr: public/naive 1.20; `per-item-3d` at 0.50 of public" in section
    assert "`fast`" not in section


def test_rejected_table_keeps_losers_and_unrun_candidates():
    report = render_handoff(RESULTS)
    section = report.split("## Rejected regions")[1]
    assert "| `fast` 8x8x8, 1 thr | batched-3d | 1.60 of public | slower than the public route |" in section
    assert "| `slow` 8x8x8, 1 thr | opencv | not-run | not installed: cv2 |" in section
    assert "| `slow` 8x8x8, 1 thr | per-item-3d | 0.50 of public | faster here but not selected" in section


def test_notes_land_under_their_sections():
    notes = "## Removed work\n\nDropped the mask pass.\n\n## Follow-ups\n\n- try OpenCV\n"
    assert parse_notes(notes) == {"removed work": "Dropped the mask pass.", "follow-ups": "- try OpenCV"}
    report = render_handoff(RESULTS, notes)
    assert report.index("Dropped the mask pass.") > report.index("## Removed work")
    assert report.index("- try OpenCV") > report.index("## Follow-ups")


def test_a_foreign_schema_is_refused():
    with pytest.raises(ResultsError, match="results schema must be 'torchperf-bench/4'"):
        render_handoff({**RESULTS, "schema": "torchperf-bench/1"})
    with pytest.raises(ResultsError, match="lack a provenance block"):
        render_handoff({key: value for key, value in RESULTS.items() if key != "provenance"})


def test_the_header_states_the_provenance():
    report = render_handoff(RESULTS).splitlines()
    assert report[2] == "Measured 2026-12-03 on test cpu (1 core), Python 3.11,"
    assert report[4].endswith("Reproduce with `python -m bench --threads 1`.")
    assert report[5].startswith("Sources measured: 0 files of `kernel`")


def test_cli_writes_the_report_and_reports_bad_input(tmp_path, capsys):
    source = tmp_path / "results.json"
    source.write_text(json.dumps(RESULTS))
    out = tmp_path / "HANDOFF.md"
    assert main([str(source), "-o", str(out)]) == 0
    assert out.read_text().startswith("# Handoff")
    source.write_text("{not json")
    assert main([str(source)]) == 2
    assert "handoff: cannot render" in capsys.readouterr().err
