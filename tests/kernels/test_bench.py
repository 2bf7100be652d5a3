"""The benchmark harness end to end on tiny volumes: schema, agreement checks and recorded parameters."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("scipy")

from torchperf_lint.reference_kernels.bench import (
    heap,  # noqa: E402
    measure,  # noqa: E402
)
from torchperf_lint.reference_kernels.bench.__main__ import main  # noqa: E402
from torchperf_lint.reference_kernels.bench.measure import balanced_orders, time_interleaved  # noqa: E402
from torchperf_lint.reference_kernels.bench.peers import PEERS, normalised_grid  # noqa: E402
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
    assert results["schema"] == "torchperf-bench/4"
    assert [r["id"] for r in results["regions"]] == ["warp-c1-n4", "warp-u8-c3-n2-fill", "plane-c3-n4-numpy"]
    for region in results["regions"]:
        named = {c["name"]: c for c in region["candidates"]}
        timed = [c for c in region["candidates"] if c["status"] == "ok"]
        cycle = len(balanced_orders(len(timed)))
        for name in ("public", "naive"):
            assert named[name]["status"] == "ok"
            assert 0 < named[name]["min_ms"] <= named[name]["median_ms"] <= named[name]["max_ms"]
            # at least 9 rounds, in whole cycles of balanced orders
            assert named[name]["samples"] == -(-9 // cycle) * cycle
        assert all("paired_ratio_to_public" in c for c in timed if c["name"] != "public")


def test_each_region_records_the_route_the_routers_took(results):
    routes = {r["id"]: r["route"] for r in results["regions"]}
    assert routes["warp-c1-n4"] == "fold" and routes["warp-u8-c3-n2-fill"] == "fold"
    assert routes["plane-c3-n4-numpy"] == "plane-merged"  # 6 x 8 voxels a slice: too small for OpenCV


def test_rivals_are_checked_before_timing(results):
    fold = next(r for r in results["regions"] if r["id"] == "warp-c1-n4")
    statuses = {c["name"]: c["status"] for c in fold["candidates"]}
    assert statuses == {"public": "ok", "naive": "ok", "batched-3d": "ok", "fold-one-group": "ok", "scipy": "ok"}
    agreement = {c["name"]: c.get("agreement") for c in fold["candidates"]}
    assert agreement == {"public": None, "naive": "passed", "batched-3d": "passed", "fold-one-group": "passed",
                         "scipy": "passed"}  # fmt: skip


def test_a_peer_is_checked_and_timed_like_a_rival_or_marked_not_installed(tmp_path, monkeypatch):
    def missing(call):
        raise ModuleNotFoundError("No module named 'albucore'", name="albucore")

    out = tmp_path / "peers.json"
    argv = [
        "--quick",
        "--threads",
        "1",
        "--regions",
        "remap-c1-n1,plane-c3-n1",
        "--size",
        "4,6,8",
        "--peers",
        "albucore",
    ]
    assert main([*argv, "--json", str(out)]) == 0
    installed = json.loads(out.read_text())
    monkeypatch.setitem(PEERS, "albucore", missing)
    assert main([*argv, "--json", str(out)]) == 0
    absent = json.loads(out.read_text())
    for region in absent["regions"]:
        peer = next(c for c in region["candidates"] if c["name"] == "albucore")
        assert peer == {"name": "albucore", "backend": "albucore", "peer": True, "status": "not-run",
                        "reason": "not installed: albucore"}  # fmt: skip
    if importlib.util.find_spec("albucore") is None:
        pytest.skip("albucore is not installed")
    for region in installed["regions"]:
        peer = next(c for c in region["candidates"] if c["name"] == "albucore")
        assert (peer["status"], peer["agreement"], peer["peer"]) == ("ok", "passed", True)
        assert peer["paired_ratio_to_public"] > 0 and peer["peak_extra_mb"] is not None


def test_normalised_grid_is_what_grid_sample_reads_for_a_voxel():
    grid = normalised_grid(np.array([[[[0.0, 0.0, 0.0], [3.0, 1.0, 4.0]]]], np.float32), (5, 2, 4))
    np.testing.assert_allclose(grid[0, 0, 0], [-0.75, -0.5, -0.8])
    np.testing.assert_allclose(grid[0, 0, 1], [0.75, 0.5, 0.8])


@pytest.mark.parametrize("count", range(1, 8))
def test_balanced_orders_let_every_candidate_follow_every_other_equally_often(count):
    orders = balanced_orders(count)
    assert all(sorted(order) == list(range(count)) for order in orders)
    follows = Counter((order[i], order[i + 1]) for order in orders for i in range(count - 1))
    assert set(follows) == {(a, b) for a in range(count) for b in range(count) if a != b}
    assert len(set(follows.values())) <= 1


def test_paired_ratios_compare_calls_taken_in_the_same_round(monkeypatch):
    clock = [0]
    other_ms = iter([20, 20, 5, 20, 1, 1])  # two warm-up calls, then four rounds

    def advance(ms):
        clock[0] += int(ms * 1e6)

    monkeypatch.setattr(measure.time, "perf_counter_ns", lambda: clock[0])
    calls = {"public": lambda: advance(10), "other": lambda: advance(next(other_ms))}
    timings = time_interleaved(calls, reference="public", warmup=1, samples=4)
    assert timings["other"].samples == timings["public"].samples == 4
    assert (timings["public"].median_ms, timings["public"].paired_ratio) == (10.0, 1.0)
    # rounds of 20, 5, 20, 1 ms against 10 ms each: ratios 2, 0.5, 2, 0.1
    assert (timings["other"].median_ms, timings["other"].paired_ratio) == (12.5, 1.25)


def test_heap_modes_run_in_a_child_with_their_tunables(tmp_path):
    out = tmp_path / "cold.json"
    argv = ["--quick", "--threads", "1", "--regions", "warp-c1-n1", "--size", "2,3,4", "--heap", "cold"]
    completed = subprocess.run(
        [sys.executable, "-m", "torchperf_lint.reference_kernels.bench", *argv, "--json", str(out)],
        capture_output=True,
        text=True,
        check=False,
        env={key: value for key, value in os.environ.items() if key not in ("GLIBC_TUNABLES", heap.CHILD_MARK)},
    )
    assert completed.returncode == 0, completed.stderr
    recorded = json.loads(out.read_text())["provenance"]
    assert recorded["heap"] == {"mode": "cold", "glibc_tunables": heap.TUNABLES["cold"]}
    assert recorded["command"].endswith(" ".join([*argv, "--json", str(out)]))
    assert heap.needs_child("warm") and not heap.needs_child("default")


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


def test_peak_memory_is_measured_at_the_thread_count_each_row_was_timed_with(tmp_path, monkeypatch):
    """The depth split allocates differently with more threads, so one thread's peak is no other's."""
    import torch
    from torchperf_lint.reference_kernels.bench import run

    def threads_as_peak(runner):
        return float(torch.get_num_threads())

    monkeypatch.setattr(run, "peak_extra_mb", threads_as_peak)
    out = tmp_path / "results.json"
    assert (
        main(["--quick", "--threads", "1,2", "--regions", "remap-c3-n1", "--size", "4,6,8", "--json", str(out)])
        == 0
    )
    peaks = {
        (row["threads"], c["name"]): c["peak_extra_mb"] for row in json.loads(out.read_text())["regions"]
        for c in row["candidates"] if c["status"] == "ok"
    }  # fmt: skip
    assert peaks == {(1, "public"): 1.0, (1, "naive"): 1.0, (1, "batched-3d"): 1.0,
                     (2, "public"): 2.0, (2, "naive"): 2.0, (2, "batched-3d"): 2.0}  # fmt: skip


def test_the_recorded_size_is_that_of_the_result_when_a_region_fixes_the_plane():
    from torchperf_lint.reference_kernels.bench.regions import REGIONS, build_call, output_size

    small = next(r for r in REGIONS if r.id == "plane-c3-n16-numpy-small")
    remap = next(r for r in REGIONS if r.id == "remap-c1-n1")
    assert output_size(build_call(small, (8, 64, 64))) == (8, 16, 16)
    assert output_size(build_call(remap, (4, 6, 8))) == (4, 6, 8)
