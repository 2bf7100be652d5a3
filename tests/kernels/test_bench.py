"""The benchmark harness end to end on tiny volumes: schema, agreement checks and recorded parameters."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")
pytest.importorskip("scipy")

from torchperf_lint.reference_kernels.bench.__main__ import main  # noqa: E402
from torchperf_lint.reference_kernels.bench.provenance import package_root, source_sha256  # noqa: E402
from torchperf_lint.reference_kernels.handoff import SECTIONS, render_handoff  # noqa: E402

REGIONS = "warp-c1-n4,plane-c3-n4-numpy,warp-u8-c3-n2-fill"


ARGV = ["--quick", "--threads", "1", "--regions", REGIONS, "--size", "4,6,8"]


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("bench") / "results.json"
    assert main([*ARGV, "--json", str(out)]) == 0
    return {**json.loads(out.read_text()), "out": str(out)}


def test_every_requested_region_is_timed_with_public_and_naive(results):
    assert results["schema"] == "torchperf-bench/2"
    assert [r["id"] for r in results["regions"]] == ["warp-c1-n4", "warp-u8-c3-n2-fill", "plane-c3-n4-numpy"]
    for region in results["regions"]:
        named = {c["name"]: c for c in region["candidates"]}
        for name in ("public", "naive"):
            assert named[name]["status"] == "ok"
            assert 0 < named[name]["min_ms"] <= named[name]["median_ms"] <= named[name]["max_ms"]
            assert named[name]["samples"] == 9


def test_rivals_are_checked_before_timing(results):
    fold = next(r for r in results["regions"] if r["id"] == "warp-c1-n4")
    statuses = {c["name"]: c["status"] for c in fold["candidates"]}
    assert statuses == {"public": "ok", "naive": "ok", "batched-3d": "ok", "fold-one-group": "ok", "scipy": "ok"}
    agreement = {c["name"]: c.get("agreement") for c in fold["candidates"]}
    assert agreement == {"public": None, "naive": "passed", "batched-3d": "passed", "fold-one-group": "passed",
                         "scipy": "passed"}  # fmt: skip
    plane = next(r for r in results["regions"] if r["id"] == "plane-c3-n4-numpy")
    opencv = next(c for c in plane["candidates"] if c["name"] == "opencv")
    assert opencv["status"] in {"ok", "not-run"}


def test_parameters_and_environment_are_recorded(results):
    plane = next(r for r in results["regions"] if r["id"] == "plane-c3-n4-numpy")
    assert plane["params"]["layout"] == "NDHWC"
    assert plane["params"]["shape"] == [4, 4, 6, 8, 3]
    assert plane["params"]["strides"] == [4 * 6 * 8 * 3 * 4, 6 * 8 * 3 * 4, 8 * 3 * 4, 3 * 4, 4]
    assert plane["threads"] == 1
    assert results["environment"]["versions"]["torch"]


def test_provenance_names_the_command_machine_and_every_imported_source(results):
    provenance = results["provenance"]
    entry = "python -m torchperf_lint.reference_kernels.bench"
    assert provenance["command"] == " ".join([entry, *ARGV, "--json", results["out"]])
    assert provenance["threads"] == [1] and provenance["cores"] >= 1 and provenance["cpu"]
    assert provenance["torch"].startswith("2.")
    assert provenance["package"] == "torchperf_lint.reference_kernels"
    sources = provenance["sources"]
    assert {"api.py", "routers.py", "sampling.py", "bench/regions.py", "bench/__main__.py"} <= set(sources)
    assert all(sources[name] == source_sha256(package_root() / name) for name in sources)


def test_the_results_render_into_a_complete_handoff(results):
    report = render_handoff(results, "## Removed work\n\nThe mask pass.\n")
    headings = [line[3:] for line in report.splitlines() if line.startswith("## ")]
    assert headings == list(SECTIONS)
    assert "The mask pass." in report


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--threads", "0"], "--threads takes positive integers"),
        (["--size", "4,6"], "--size takes three integers"),
        (["--regions", "nope"], "unknown region ids: nope"),
    ],
)
def test_bad_options_exit_2_with_a_message(argv, words, capsys):
    with pytest.raises(SystemExit) as raised:
        main(argv)
    assert raised.value.code == 2
    assert words in capsys.readouterr().err
