"""The behaviour promised besides the numbers: aliasing, mutation, autograd, copies and route choice."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torchperf_lint.reference_kernels import layouts, remap3d, routers, sampling, validation, warp_affine3d  # noqa: E402
from torchperf_lint.reference_kernels.routers import FOLD_MIN_BATCH, PLANES_PER_ITEM  # noqa: E402

from kernels.cases import make_case  # noqa: E402

SHIFT = np.array([[1.0, 0, 0, 0.5], [0, 1.0, 0, 0.25], [0, 0, 1.0, 0.75]])
PLANE = np.array([[0.9, -0.3, 0, 1.0], [0.3, 0.9, 0, -0.5], [0, 0, 1.0, 0]])
LAYOUTS = ("CDHW", "NCDHW", "DHWC", "NDHWC")


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("matrix", [np.eye(4), np.eye(3, 4)], ids=["4x4", "3x4"])
def test_exact_identity_returns_the_input_object(layout, matrix):
    case = make_case(layout, "uint8", 2, 3, (4, 5, 6))
    assert warp_affine3d(case.volume, matrix, (4, 5, 6), layout=layout) is case.volume


def test_identity_with_new_size_is_a_fresh_result():
    case = make_case("NCDHW", "float32", 2, 1, (4, 5, 6))
    result = warp_affine3d(case.volume, np.eye(4), (4, 5, 7), layout="NCDHW")
    assert result.shape == (2, 1, 4, 5, 7)
    torch.testing.assert_close(result[..., :6], case.volume, rtol=0, atol=1e-5)


def _as_array(volume) -> np.ndarray:
    return volume.numpy() if isinstance(volume, torch.Tensor) else volume


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float32"])
def test_inputs_are_never_modified(layout, dtype):
    case = make_case(layout, dtype, 3, 2, (4, 5, 6))
    before = _as_array(case.volume).copy()
    coords = np.random.default_rng(0).uniform(-1, 6, (3, 4, 5, 3)).astype(np.float32)
    coords_before = coords.copy()
    for result in (
        warp_affine3d(case.volume, SHIFT, (4, 5, 6), layout=layout, border_value=7),
        warp_affine3d(case.volume, PLANE, (4, 5, 6), layout=layout, border_value=7),
        remap3d(case.volume, coords, layout=layout, border_value=7),
    ):
        assert not np.shares_memory(_as_array(result), _as_array(case.volume))
    np.testing.assert_array_equal(_as_array(case.volume), before)
    np.testing.assert_array_equal(coords, coords_before)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float32"])
def test_result_keeps_container_layout_and_dtype(layout, dtype):
    case = make_case(layout, dtype, 2, 3, (4, 5, 6))
    result = warp_affine3d(case.volume, SHIFT, (3, 7, 2), layout=layout)
    assert type(result) is type(case.volume)
    assert result.dtype == case.volume.dtype
    expected = {"CDHW": (3, 3, 7, 2), "NCDHW": (2, 3, 3, 7, 2), "DHWC": (3, 7, 2, 3), "NDHWC": (2, 3, 7, 2, 3)}
    assert tuple(result.shape) == expected[layout]


def test_uint8_rounds_half_up_and_saturates_once():
    volume = torch.tensor([0, 255, 1, 2], dtype=torch.uint8).view(1, 1, 1, 4)
    # x + 0.5: each output voxel averages two neighbours
    result = warp_affine3d(volume, [[1, 0, 0, -0.5], [0, 1, 0, 0], [0, 0, 1, 0]], (1, 1, 3), layout="CDHW")
    assert result.flatten().tolist() == [128, 128, 2]  # 127.5 -> 128, 128 -> 128, 1.5 -> 2
    bright = warp_affine3d(volume, SHIFT, (1, 1, 4), layout="CDHW", border_value=1000.0)
    assert bright.max().item() == 255


@pytest.mark.parametrize("call", ["warp", "plane", "remap"])
def test_no_autograd_is_recorded_and_the_result_can_feed_training(call):
    volume = torch.rand(2, 1, 4, 5, 6)
    with torch.enable_grad():
        if call == "remap":
            result = remap3d(volume, torch.rand(4, 5, 6, 3) * 4, layout="NCDHW")
        else:
            result = warp_affine3d(volume, SHIFT if call == "warp" else PLANE, (4, 5, 6), layout="NCDHW")
    assert result.grad_fn is None and not result.requires_grad
    assert not result.is_inference()
    conv = torch.nn.Conv3d(1, 2, kernel_size=3)
    conv(result).sum().backward()  # an inference tensor could not be saved for this backward
    assert conv.weight.grad is not None


def test_numpy_bridge_is_zero_copy_when_the_buffer_allows_it():
    array = np.zeros((2, 4, 5, 6, 3), dtype=np.float32)
    working = layouts.as_working(array, "NDHWC")
    assert working.data_ptr() == array.ctypes.data
    assert tuple(working.shape) == (2, 3, 4, 5, 6)


@pytest.mark.parametrize("make", ["negative_strides", "read_only"])
def test_numpy_bridge_copies_exactly_once_when_it_must(make):
    array = np.arange(2 * 4 * 5 * 6 * 3, dtype=np.float32).reshape(2, 4, 5, 6, 3)
    if make == "negative_strides":
        array = array[:, ::-1]
    else:
        array.flags.writeable = False
    working = layouts.as_working(array, "NDHWC")
    assert not np.shares_memory(working.numpy(), array)
    np.testing.assert_array_equal(working.permute(0, 2, 3, 4, 1).numpy(), array)
    result = warp_affine3d(array, SHIFT, (4, 5, 6), layout="NDHWC")
    assert result.shape == array.shape


def test_empty_batch_returns_an_empty_result():
    volume = torch.zeros(0, 2, 4, 5, 6, dtype=torch.uint8)
    assert tuple(warp_affine3d(volume, SHIFT, (3, 3, 3), layout="NCDHW").shape) == (0, 2, 3, 3, 3)
    coords = np.zeros((2, 2, 2, 3), dtype=np.float32)
    assert remap3d(np.zeros((0, 4, 5, 6, 1), np.float32), coords, layout="NDHWC").shape == (0, 2, 2, 2, 1)


class SamplerSpy:
    """Wraps ``grid_sample`` and records the input shape of every call."""

    def __init__(self, monkeypatch):
        self.calls: list[tuple[int, ...]] = []
        real = torch.nn.functional.grid_sample

        def spy(work, grid, **kwargs):
            self.calls.append(tuple(work.shape))
            return real(work, grid, **kwargs)

        monkeypatch.setattr(sampling.F, "grid_sample", spy)


@pytest.fixture
def sampler(monkeypatch) -> SamplerSpy:
    return SamplerSpy(monkeypatch)


def test_single_channel_batch_folds_into_channels_with_one_call(sampler, monkeypatch):
    monkeypatch.setattr(torch, "get_num_threads", lambda: 2)
    batch = max(4, FOLD_MIN_BATCH)
    warp_affine3d(torch.rand(batch, 1, 4, 5, 6), SHIFT, (4, 5, 6), layout="NCDHW")
    remap3d(torch.rand(batch, 1, 4, 5, 6), torch.rand(3, 3, 3, 3), layout="NCDHW")
    assert sampler.calls == [(2, batch // 2, 4, 5, 6)] * 2


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_a_lone_volume_splits_its_output_depth_across_threads(sampler, monkeypatch, threads):
    monkeypatch.setattr(torch, "get_num_threads", lambda: threads)
    warp_affine3d(torch.rand(1, 4, 5, 6), SHIFT, (6, 5, 6), layout="CDHW")
    remap3d(np.random.rand(4, 5, 6, 1).astype(np.float32), torch.rand(6, 3, 3, 3), layout="DHWC")
    assert sampler.calls == [(threads, 1, 4, 5, 6)] * 2


def test_depth_split_takes_any_channel_count_but_needs_a_divisible_depth(sampler, monkeypatch):
    monkeypatch.setattr(torch, "get_num_threads", lambda: 2)
    warp_affine3d(torch.rand(3, 4, 5, 6), SHIFT, (6, 5, 6), layout="CDHW")
    warp_affine3d(torch.rand(1, 4, 5, 6), SHIFT, (5, 5, 6), layout="CDHW")
    warp_affine3d(torch.rand(2, 3, 4, 5, 6), SHIFT, (6, 5, 6), layout="NCDHW")
    assert sampler.calls == [(2, 3, 4, 5, 6), (1, 1, 4, 5, 6), (2, 3, 4, 5, 6)]


def test_a_multi_channel_batch_folds_into_channels_one_group_per_thread(sampler, monkeypatch):
    monkeypatch.setattr(torch, "get_num_threads", lambda: 2)
    warp_affine3d(torch.rand(4, 3, 4, 5, 6), SHIFT, (4, 5, 6), layout="NCDHW", border_value=[1, 2, 3])
    remap3d(torch.rand(4, 3, 4, 5, 6), torch.rand(3, 3, 3, 3), layout="NCDHW")
    assert sampler.calls == [(2, 6, 4, 5, 6)] * 2


def test_a_batch_whose_items_do_not_merge_with_channels_samples_as_a_batch(sampler, monkeypatch):
    monkeypatch.setattr(torch, "get_num_threads", lambda: 2)
    channels_last = np.random.rand(4, 4, 5, 6, 3).astype(np.float32)  # NDHWC: channels do not merge
    warp_affine3d(channels_last, SHIFT, (4, 5, 6), layout="NDHWC")
    every_other_channel = torch.rand(4, 6, 4, 5, 6)[:, ::2]  # strided, but still one axis with the batch
    warp_affine3d(every_other_channel, SHIFT, (4, 5, 6), layout="NCDHW")
    assert sampler.calls == [(4, 3, 4, 5, 6), (2, 6, 4, 5, 6)]


def test_plane_warp_folds_batch_channels_and_depth_into_groups_of_planes(sampler):
    warp_affine3d(torch.rand(3, 1, 4, 5, 6), PLANE, (4, 7, 8), layout="NCDHW")
    warp_affine3d(torch.rand(4, 3, 8, 5, 6), PLANE, (8, 7, 8), layout="NCDHW")
    warp_affine3d(torch.rand(3, 5, 5, 6), PLANE, (5, 7, 8), layout="CDHW")
    assert sampler.calls == [(1, 12, 5, 6), (6, PLANES_PER_ITEM, 5, 6), (1, 15, 5, 6)]


def test_a_lone_multi_channel_plane_warp_allocates_nothing_beyond_the_result(monkeypatch):
    outputs = []
    real = torch.nn.functional.grid_sample

    def keep(work, grid, **kwargs):
        outputs.append(real(work, grid, **kwargs))
        return outputs[-1]

    monkeypatch.setattr(sampling.F, "grid_sample", keep)
    result = warp_affine3d(torch.rand(3, 16, 20, 24), PLANE, (16, 20, 24), layout="CDHW")
    assert len(outputs) == 1
    assert result.untyped_storage().data_ptr() == outputs[0].untyped_storage().data_ptr()


def test_plane_warp_merges_batch_and_depth_when_that_is_a_view(sampler, without_opencv):
    warp_affine3d(np.random.rand(3, 4, 5, 6, 2).astype(np.float32), PLANE, (4, 7, 8), layout="NDHWC")
    warp_affine3d(np.random.rand(4, 5, 6, 2).astype(np.float32), PLANE, (4, 7, 8), layout="DHWC")
    assert sampler.calls == [(12, 2, 5, 6), (4, 2, 5, 6)]


def test_plane_warp_samples_channel_volumes_in_groups_of_planes_when_depth_does_not_merge(sampler):
    depth = PLANES_PER_ITEM + 4
    stacked = torch.rand(3, 4, depth, 5, 6)[:, ::2]  # channels and depth do not merge; batch does
    warp_affine3d(stacked, PLANE, (depth, 7, 8), layout="NCDHW")
    per_item = torch.rand(2, 5, 4, 5, 6)[:, ::2]  # neither merges: one stack per batch item
    warp_affine3d(per_item, PLANE, (4, 7, 8), layout="NCDHW")
    assert sampler.calls == [(6, PLANES_PER_ITEM, 5, 6), (6, 4, 5, 6), (3, 4, 5, 6), (3, 4, 5, 6)]


def test_nearest_plane_warp_keeps_the_3d_sampler(sampler, monkeypatch):
    monkeypatch.setattr(torch, "get_num_threads", lambda: 2)
    warp_affine3d(torch.rand(3, 2, 4, 5, 6), PLANE, (4, 7, 8), layout="NCDHW", interpolation="nearest")
    assert sampler.calls == [(2, 3, 4, 5, 6)]


@pytest.mark.parametrize(
    ("function", "volume", "argument", "layout", "route"),
    [
        ("warp", torch.rand(2, 1, 4, 5, 6), SHIFT, "NCDHW", "fold"),
        ("warp", torch.rand(1, 4, 5, 6), SHIFT, "CDHW", "depth-split"),
        ("warp", torch.rand(1, 3, 5, 6), SHIFT, "CDHW", "general-3d"),
        ("warp", torch.rand(2, 3, 5, 6), PLANE, "CDHW", "plane-fold"),
        ("warp", torch.rand(2, 6, 3, 5, 6)[:, ::2], PLANE, "NCDHW", "plane-volumes"),
        ("remap", torch.rand(1, 4, 5, 6), torch.rand(4, 2, 2, 3), "CDHW", "depth-split"),
        ("remap", torch.rand(3, 2, 4, 5, 6), torch.rand(4, 2, 2, 3), "NCDHW", "fold"),
    ],
)
def test_the_route_the_benchmark_records_is_the_route_dispatched(
    function, volume, argument, layout, route, monkeypatch
):
    monkeypatch.setattr(torch, "get_num_threads", lambda: 2)
    if function == "warp":
        request = validation.validate_warp(
            volume, argument, tuple(volume.shape[-3:]), layout, "linear", "constant", 0
        )
        run, planned = routers.warp_router, routers.warp_route(request)
    else:
        request = validation.validate_remap(volume, argument, layout, "linear", "constant", 0)
        run, planned = routers.remap_router, routers.remap_route(request)
    dispatched = []
    for helper in ("_sample_volumes", "_sample_planes"):
        real = getattr(routers, helper)
        monkeypatch.setattr(routers, helper, lambda *args, real=real: dispatched.append(args[-1]) or real(*args))
    run(request)
    assert dispatched == [planned] == [route]
