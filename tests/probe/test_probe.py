"""The probe on small kernels with one trait each: exact counts, the same on every run."""

from __future__ import annotations

import inspect
import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torchperf_lint.probe import ProbeReport, assert_kept, assert_within, diff, probe  # noqa: E402

from . import kernels  # noqa: E402

VOLUME_SHAPE = (3, 4, 5, 6)
ELEMENTS = 3 * 4 * 5 * 6


@pytest.fixture
def volume() -> torch.Tensor:
    return torch.rand(VOLUME_SHAPE)


def test_an_inference_mode_route_is_reported_with_the_backward_and_in_place_update_that_fail(volume):
    report = probe(kernels.resize_inference, volume, (8, 10, 12))
    assert report.inference_outputs == ("result",)
    assert report.backward_failures == {"result": "Inference tensors cannot be saved for backward"}
    assert report.inplace_failures == {
        "result": "Inplace update to inference tensor outside InferenceMode is not allowed"
    }
    assert report.breaches == (
        "returns inference tensors: result",
        "result cannot feed a backward pass: Inference tensors cannot be saved for backward",
        "result cannot take an in-place update: Inplace update to inference tensor outside InferenceMode is not "
        "allowed",
    )


def test_the_same_route_under_no_grad_keeps_the_contract(volume):
    report = probe(kernels.resize_no_grad, volume, (8, 10, 12))
    assert (report.inference_outputs, report.backward_failures, report.inplace_failures) == ((), {}, {})
    assert report.breaches == () and not report.records_graph
    assert [(a.op, a.nbytes) for a in report.allocations] == [("aten.upsample_trilinear3d", 3 * 8 * 10 * 12 * 4)]


def test_a_breach_on_one_side_of_a_size_threshold_shows_only_there(volume):
    small, large = (4, 5, 6), (10, 10, 12)
    assert small[0] * small[1] * small[2] < kernels.INFERENCE_FROM <= large[0] * large[1] * large[2]
    assert probe(kernels.resize_inference_above, volume, small).inference_outputs == ()
    assert probe(kernels.resize_inference_above, volume, large).inference_outputs == ("result",)


def test_albucore_warp_affine3d_returns_no_inference_tensor():
    albucore = pytest.importorskip("albucore.affine3d")
    report = probe(albucore.warp_affine3d, torch.rand(2, 8, 9, 10), np.eye(4), (8, 9, 11))
    assert report.breaches == ()


def test_two_runs_give_identical_counts(volume):
    first = probe(kernels.scale_channels_last_copied, volume)
    assert probe(kernels.scale_channels_last_copied, volume) == first
    assert first.to_dict() == probe(kernels.scale_channels_last_copied, volume).to_dict()


def test_one_contiguous_of_a_permuted_volume_is_exactly_one_more_full_size_copy(volume):
    base = probe(kernels.scale_channels_last, volume)
    head = probe(kernels.scale_channels_last_copied, volume)
    assert [op.name for op in head.full_size_copies] == ["aten.clone"]
    assert base.full_size_copies == ()
    added = [a for a in head.allocations if a not in base.allocations]
    assert added == [head.allocations[0]] and (added[0].op, added[0].nbytes) == ("aten.clone", ELEMENTS * 4)
    assert diff(base, head).lines == (
        "+1 full-size copy per call",
        "+1 full-size pass per call",
        "+1 buffer per call",
        "+0.0 MB allocated (+1,440 bytes)",
        "+0.0 MB at the peak (+1,440 bytes)",
        "result: Tensor float32 (3, 4, 5, 6) strides (120, 30, 6, 1) contiguous -> "
        "Tensor float32 (3, 4, 5, 6) strides (1, 90, 18, 3) memory order (1, 2, 3, 0)",
    )
    assert not diff(head, head)


def test_full_size_is_the_smaller_of_the_volume_and_the_result(volume):
    shrunk = probe(kernels.resize_no_grad, volume, (2, 2, 2))
    grown = probe(kernels.resize_no_grad, volume, (8, 10, 12))
    assert shrunk.full_size_elements == 3 * 2 * 2 * 2
    assert grown.full_size_elements == ELEMENTS


def test_scratch_buffers_inside_an_operation_count_too():
    theta = torch.eye(3, 4).unsqueeze(0)
    report = probe(torch.nn.functional.affine_grid, theta, [1, 1, 4, 5, 6], align_corners=False)
    voxels = 4 * 5 * 6
    assert [(a.op, a.nbytes) for a in report.allocations] == [("aten.affine_grid_generator", voxels * 3 * 4)]
    assert report.internal_bytes >= voxels * 4 * 4  # the homogeneous base grid, freed inside the operation
    assert report.allocated_bytes == voxels * 3 * 4 + report.internal_bytes


def test_recording_autograd_is_reported_by_the_operations_that_did(volume):
    report = probe(kernels.trainable_scale, volume)
    assert report.graph_ops == ("torch.ones", "torch.Tensor.mul")
    assert report.outputs["result"].requires_grad
    assert report.breaches[0] == "records autograd: torch.ones, torch.Tensor.mul"


def test_host_reads_are_counted_by_the_python_api_that_made_them(volume):
    report = probe(kernels.reads_values, volume)
    assert report.host_reads == {"__float__": 1, "tolist": 1, "__bool__": 1, "item": 1}
    assert report.breaches == ()


def test_work_off_the_cpu_is_a_breach(volume):
    report = probe(kernels.through_meta, volume)
    assert report.device_ops == ("aten._to_copy", "aten.empty_like")
    assert report.breaches == ("works off the CPU: aten._to_copy, aten.empty_like",)


def test_writes_into_an_input_are_caught_whether_or_not_the_values_change():
    unchanged = probe(kernels.clamps_in_place, torch.rand(VOLUME_SHAPE))
    assert (unchanged.input_writes, unchanged.mutated_inputs) == (("aten.clamp_ wrote into volume",), ())
    assert unchanged.aliases == {"result": "volume"}
    changed = probe(kernels.halves_in_place, torch.rand(VOLUME_SHAPE))
    assert (changed.input_writes, changed.mutated_inputs) == (("aten.mul_ wrote into volume",), ("volume",))


def test_thread_settings_made_during_the_call_are_a_breach_even_when_restored(volume):
    threads = torch.get_num_threads()
    report = probe(kernels.one_thread, volume)
    assert (report.threads.before, report.threads.after) == (threads, threads)
    assert report.threads.calls == ("torch.set_num_threads(1)", f"torch.set_num_threads({threads})")


def test_a_numpy_buffer_counts_once_and_stays_held_by_the_result():
    array = np.ones((4, 5, 6, 3), np.float32)
    report = probe(kernels.numpy_twice, array)
    assert [(a.op, a.nbytes, a.source) for a in report.allocations] == [("torch.from_numpy", 1440, "numpy")]
    assert (report.allocator_bytes, report.peak_bytes, report.retained_bytes) == (20, 1460, 1440)  # 2.0 wrapped
    assert report.layout_changes == ()


def test_a_report_round_trips_through_json(volume):
    report = probe(kernels.resize_inference, volume, (8, 10, 12))
    assert ProbeReport.from_dict(json.loads(report.json())) == report


def test_the_assertion_helpers_name_what_failed(volume):
    report = probe(kernels.scale_channels_last_copied, volume)
    assert_within(report, allocated_bytes=2 * ELEMENTS * 4 + 20, full_size_copies=1)
    with pytest.raises(
        AssertionError, match=r"full_size_copies: 1 > 0\n  buffers \(0.0 MB\):\n +1,440 B  aten.clone"
    ):
        assert_within(report, full_size_copies=0)
    assert_kept(report)
    with pytest.raises(AssertionError, match="breaks the contract:\n  - returns inference tensors: result"):
        assert_kept(probe(kernels.resize_inference, volume, (8, 10, 12)))


def test_the_text_report_of_a_kept_call():
    assert probe(kernels.scale_channels_last_copied, torch.ones(VOLUME_SHAPE)).text() == (
        f"probe: {kernels.__name__}.scale_channels_last_copied ({inspect.getsourcefile(kernels)})\n"
        "  input  volume: Tensor float32 (3, 4, 5, 6) strides (120, 30, 6, 1) contiguous\n"
        "  output result: Tensor float32 (3, 4, 5, 6) strides (1, 90, 18, 3) memory order (1, 2, 3, 0)\n"
        "layout: result: memory order (0, 1, 2, 3) -> (1, 2, 3, 0)\n"
        "autograd: no graph recorded; no inference outputs; every returned tensor feeds a backward pass and "
        "takes an in-place update\n"
        "device: every operation on the CPU\n"
        "host reads: none\n"
        "allocations: 0.0 MB (2,900 bytes) in 2 buffers and 20 bytes inside operations; peak 0.0 MB, 0.0 MB still "
        "held when the call returned\n"
        "          1,440 B  aten.clone -> float32 (4, 5, 6, 3)\n"
        "          1,440 B  aten.mul -> float32 (4, 5, 6, 3)\n"
        "full-size (>= 360 elements): 1 copy (aten.clone), 2 passes, 4 operations in all\n"
        f"threads: {torch.get_num_threads()}, not changed\n"
        "inputs: not written\n"
        "contract: kept\n"
    )
