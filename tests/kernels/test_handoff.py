"""The handoff renderer on hand-made results: exact figures, regressions and rejected candidates."""

from __future__ import annotations

import json

import pytest
from torchperf_lint.reference_kernels.handoff import render_handoff
from torchperf_lint.reference_kernels.handoff.__main__ import main
from torchperf_lint.reference_kernels.handoff.render import ResultsError, parse_notes


def candidate(name, median, backend="torch", peak=1.0, **extra):
    return {"name": name, "backend": backend, "status": "ok", "median_ms": median, "min_ms": median,
            "max_ms": median, "samples": 5, "peak_extra_mb": peak, **extra}  # fmt: skip


def region(rid, route, *candidates, threads=1):
    params = {"layout": "NCDHW", "shape": [4, 1, 8, 8, 8], "strides": [512, 512, 64, 8, 1], "dtype": "float32",
              "matrix": "general", "size": [8, 8, 8], "interpolation": "linear", "border_mode": "constant",
              "border_value": 0.0}  # fmt: skip
    return {"id": rid, "route": route, "function": "warp_affine3d", "threads": threads, "params": params,
            "candidates": list(candidates)}  # fmt: skip


RESULTS = {
    "schema": "torchperf-bench/1",
    "environment": {
        "date": "2026-12-03",
        "cpu": "test cpu",
        "cores": 2,
        "python": "3.11",
        "threads": [1],
        "command": "python -m bench",
        "versions": {"torch": "2.13.0", "numpy": "2", "scipy": None, "opencv-python-headless": None},
    },  # fmt: skip
    "regions": [
        region("fast", "fold", candidate("public", 5.0), candidate("naive", 10.0), candidate("batched-3d", 8.0)),
        region(
            "slow",
            "general-3d",
            candidate("public", 12.0),
            candidate("naive", 10.0),
            candidate("per-item-3d", 6.0),
            {"name": "opencv", "backend": "opencv", "status": "not-run", "reason": "not installed: cv2"},
        ),
    ],
}


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
    with pytest.raises(ResultsError, match="results schema must be 'torchperf-bench/1'"):
        render_handoff({**RESULTS, "schema": "other"})


def test_cli_writes_the_report_and_reports_bad_input(tmp_path, capsys):
    source = tmp_path / "results.json"
    source.write_text(json.dumps(RESULTS))
    out = tmp_path / "HANDOFF.md"
    assert main([str(source), "-o", str(out)]) == 0
    assert out.read_text().startswith("# Handoff")
    source.write_text("{not json")
    assert main([str(source)]) == 2
    assert "handoff: cannot render" in capsys.readouterr().err
