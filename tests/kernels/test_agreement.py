"""Differential tests: every route, layout, dtype, border and interpolation against the SciPy reference.

Tolerances, float32 values in [0, 1]: linear within 1e-4 absolute; nearest within 1e-6 (a non-zero
fill is subtracted and added back in float32). uint8: linear within one grey level (float32
coordinates may land a value either side of .5); nearest exactly equal. Nearest-neighbour voxels
whose source coordinate lies within 1e-3 of a rounding tie are left out of the comparison: float32
and float64 may legitimately pick different neighbours there.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("scipy")

from torchperf_lint.reference_kernels import remap3d, routers, warp_affine3d  # noqa: E402
from torchperf_lint.reference_kernels.routers import FOLD_MIN_BATCH  # noqa: E402
from torchperf_lint.reference_kernels.validation import validate_warp  # noqa: E402

from kernels import reference  # noqa: E402
from kernels.cases import Case, as_ncdhw, make_case  # noqa: E402

IN_DHW = (5, 7, 9)
OUT_DHW = (6, 5, 8)
LAYOUTS = ("CDHW", "NCDHW", "DHWC", "NDHWC")
BATCHES = sorted({1, max(1, FOLD_MIN_BATCH - 1), FOLD_MIN_BATCH, FOLD_MIN_BATCH + 1})

#: A general map: rotation about a tilted axis, anisotropic scale, shear, shift; couples z with x and y.
GENERAL = np.array(
    [
        [0.93, -0.21, 0.17, 0.71],
        [0.24, 0.88, -0.13, -0.43],
        [-0.11, 0.19, 1.07, 0.37],
    ]
)
#: A plane map: rotation, scale and shift in (x, y); z kept; depth unchanged -> the 2D route.
PLANE = np.array(
    [
        [0.91, -0.33, 0.0, 1.13],
        [0.29, 1.04, 0.0, -0.61],
        [0.0, 0.0, 1.0, 0.0],
    ]
)


def fills(border_mode: str, channels: int) -> list:
    if border_mode == "replicate":
        return [0.0]
    return [0.0, 0.6, [0.1 + 0.2 * c for c in range(channels)]]


def expected(case, coords, interpolation, border_mode, border_value, dtype):
    channels = case.source.shape[1]
    scale = 255.0 if dtype == "uint8" else 1.0
    fill = np.broadcast_to(np.asarray(border_value, dtype=np.float64) * scale, (channels,))
    values = reference.sample(case.source, coords, interpolation, border_mode, fill)
    return reference.to_uint8(values).astype(np.float64) if dtype == "uint8" else values


def assert_agrees(result, case, coords, interpolation, border_mode, border_value, dtype):
    want = expected(case, coords, interpolation, border_mode, border_value, dtype)
    got = as_ncdhw(result, case.layout)
    assert got.shape == want.shape
    if interpolation == "nearest":
        keep = ~reference.near_rounding_tie(coords)
        np.testing.assert_allclose(got[..., keep], want[..., keep], rtol=0, atol=1e-6 if dtype == "float32" else 0)
    elif dtype == "uint8":
        assert np.abs(got - want).max() <= 1
    else:
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-4)


def scaled_fill(border_value, dtype):
    scale = 255.0 if dtype == "uint8" else 1.0
    if isinstance(border_value, list):
        return [v * scale for v in border_value]
    return border_value * scale


@pytest.mark.parametrize("matrix", [GENERAL, PLANE], ids=["general", "plane"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float32"])
@pytest.mark.parametrize("channels", [1, 3, 9])
@pytest.mark.parametrize("interpolation", ["linear", "nearest"])
@pytest.mark.parametrize("border_mode", ["constant", "replicate"])
def test_warp_matches_reference(matrix, layout, dtype, channels, interpolation, border_mode):
    out_dhw = IN_DHW if matrix is PLANE else OUT_DHW
    coords = reference.warp_coords(matrix, out_dhw)
    for case, border_value in _cases(layout, dtype, channels, border_mode):
        result = warp_affine3d(
            case.volume,
            matrix,
            out_dhw,
            layout=layout,
            interpolation=interpolation,
            border_mode=border_mode,
            border_value=scaled_fill(border_value, dtype),
        )
        assert_agrees(result, case, coords, interpolation, border_mode, border_value, dtype)


def _cases(layout: str, dtype: str, channels: int, border_mode: str):
    """An input for every batch size the layout takes, with every fill the border mode takes."""
    for batch in BATCHES if layout.startswith("N") else [1]:
        for border_value in fills(border_mode, channels):
            yield make_case(layout, dtype, batch, channels, IN_DHW, seed=batch), border_value


@pytest.mark.parametrize("layout", ["DHWC", "NDHWC"])
@pytest.mark.parametrize("dtype", ["uint8", "float32"])
@pytest.mark.parametrize("channels", [1, 3, 4, 5])
@pytest.mark.parametrize("border_mode", ["constant", "replicate"])
def test_numpy_plane_warps_match_reference_with_and_without_opencv(layout, dtype, channels, border_mode, opencv):
    coords = reference.warp_coords(PLANE, IN_DHW)
    for case, border_value in _cases(layout, dtype, channels, border_mode):
        fill = scaled_fill(border_value, dtype)
        result = warp_affine3d(
            case.volume, PLANE, IN_DHW, layout=layout, border_mode=border_mode, border_value=fill
        )
        assert isinstance(result, np.ndarray) and result.dtype == case.volume.dtype
        assert_agrees(result, case, coords, "linear", border_mode, border_value, dtype)


def test_the_opencv_route_is_taken_only_where_it_applies(opencv, monkeypatch):
    from torchperf_lint.reference_kernels import opencv_planes, routers
    from torchperf_lint.reference_kernels.validation import validate_warp

    def route(volume, layout, matrix=PLANE, interpolation="linear"):
        size = {"NDHWC": volume.shape[1:4], "DHWC": volume.shape[:3]}.get(layout, volume.shape[-3:])
        return routers.warp_route(validate_warp(volume, matrix, tuple(size), layout, interpolation, "constant", 0))

    array = np.zeros((2, 4, 5, 6, 3), np.float32)
    assert route(array, "NDHWC") == ("opencv-planes" if opencv else "plane-merged")
    assert route(array[0], "DHWC") == ("opencv-planes" if opencv else "plane-merged")
    assert route(np.zeros((2, 4, 5, 6, 5), np.float32), "NDHWC") == "plane-merged"  # more than 4 channels
    assert route(array, "NDHWC", interpolation="nearest") == "general-3d"  # channels-last: no fold
    assert route(array, "NDHWC", matrix=GENERAL) == "general-3d"
    assert route(torch.zeros(2, 3, 4, 5, 6), "NCDHW") == "plane-fold"
    monkeypatch.setattr(opencv_planes, "OPENCV_MIN_SLICE_VOXELS", 31)
    assert route(array, "NDHWC") == "plane-merged"  # 5 x 6 voxels per slice is below the threshold


def remap_coords(out_dhw, seed: int = 7) -> np.ndarray:
    """A smooth non-affine map that also reaches outside the input on every side."""
    rng = np.random.default_rng(seed)
    z, y, x = np.meshgrid(
        *(np.linspace(-1.3, s + 0.3, o) for s, o in zip(IN_DHW, out_dhw, strict=True)), indexing="ij"
    )
    wobble = 0.4 * np.sin(x + 2 * y - z)
    coords = np.stack([x + wobble, y - wobble, z + 0.5 * wobble], axis=-1)
    return (coords + rng.uniform(-0.05, 0.05, coords.shape)).astype(np.float32)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float32"])
@pytest.mark.parametrize("channels", [1, 3, 9])
@pytest.mark.parametrize("interpolation", ["linear", "nearest"])
@pytest.mark.parametrize("border_mode", ["constant", "replicate"])
@pytest.mark.parametrize("coords_container", ["numpy", "torch"])
def test_remap_matches_reference(layout, dtype, channels, interpolation, border_mode, coords_container):
    coords = remap_coords(OUT_DHW)
    given = torch.from_numpy(coords) if coords_container == "torch" else coords
    for case, border_value in _cases(layout, dtype, channels, border_mode):
        result = remap3d(
            case.volume,
            given,
            layout=layout,
            interpolation=interpolation,
            border_mode=border_mode,
            border_value=scaled_fill(border_value, dtype),
        )
        assert_agrees(result, case, coords.astype(np.float64), interpolation, border_mode, border_value, dtype)


@pytest.mark.parametrize("matrix", [GENERAL, PLANE], ids=["general", "plane"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("channels", [1, 3])
def test_non_contiguous_views_match_reference(matrix, layout, channels):
    out_dhw = IN_DHW if matrix is PLANE else OUT_DHW
    case = make_case(layout, "float32", 3, channels, IN_DHW, view=True)
    result = warp_affine3d(case.volume, matrix, out_dhw, layout=layout, border_value=0.25)
    coords = reference.warp_coords(matrix, out_dhw)
    assert_agrees(result, case, coords, "linear", "constant", 0.25, "float32")
    remapped = remap3d(case.volume, remap_coords(OUT_DHW), layout=layout, border_mode="replicate")
    assert_agrees(remapped, case, remap_coords(OUT_DHW).astype(np.float64), "linear", "replicate", 0.0, "float32")


@pytest.mark.parametrize(
    ("dtype", "fill"),
    [("float32", 0.0), ("float32", [0.2, 0.5, 0.7]), ("uint8", [0.2, 0.5, 0.7])],
    ids=["float32-views", "float32-fill", "uint8-fill"],
)
@pytest.mark.parametrize("spare_channels", [0, 1], ids=["batch-merges", "per-item"])
def test_plane_warp_of_every_other_channel_matches_reference(dtype, fill, spare_channels, monkeypatch):
    """Channels taken from every other channel of a wider buffer do not merge with depth, so the plane
    route samples stacks of channel volumes, here two slices at a time to cover a short last group.
    One spare channel in the buffer keeps the batch from merging with the channels as well. float32
    with a zero fill samples views of the caller's buffer; a fill or uint8 samples a working copy."""
    monkeypatch.setattr(routers, "PLANES_PER_ITEM", 2)
    source = make_case("NCDHW", dtype, 3, 3, IN_DHW).source
    wide = np.zeros((3, 6 + spare_channels, *IN_DHW), dtype=np.uint8 if dtype == "uint8" else np.float32)
    wide[:, :6:2] = source
    volume = torch.from_numpy(wide)[:, :6:2]
    request = validate_warp(volume, PLANE, IN_DHW, "NCDHW", "linear", "constant", scaled_fill(fill, dtype))
    assert routers.warp_route(request) == "plane-volumes"
    result = warp_affine3d(volume, PLANE, IN_DHW, layout="NCDHW", border_value=scaled_fill(fill, dtype))
    case = Case(volume, source, "NCDHW")
    assert_agrees(result, case, reference.warp_coords(PLANE, IN_DHW), "linear", "constant", fill, dtype)


@pytest.mark.parametrize("threads", [2, 3])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("channels", [1, 3])
def test_depth_split_matches_reference(threads, layout, channels, monkeypatch):
    monkeypatch.setattr(torch, "get_num_threads", lambda: threads)
    case = make_case(layout, "uint8", 1, channels, IN_DHW)
    result = warp_affine3d(case.volume, GENERAL, OUT_DHW, layout=layout, border_value=99)
    assert_agrees(result, case, reference.warp_coords(GENERAL, OUT_DHW), "linear", "constant", 99 / 255, "uint8")
    coords = remap_coords(OUT_DHW)
    result = remap3d(case.volume, coords, layout=layout, interpolation="nearest", border_mode="replicate")
    assert_agrees(result, case, coords.astype(np.float64), "nearest", "replicate", 0.0, "uint8")


@pytest.mark.parametrize("dhw", [(1, 1, 1), (1, 4, 3), (3, 1, 2)])
def test_one_voxel_axes_match_reference(dhw):
    case = make_case("NCDHW", "float32", 2, 2, dhw)
    matrix = np.array([[1.0, 0, 0, 0.3], [0, 1.0, 0, -0.2], [0, 0, 1.0, 0.4]])
    result = warp_affine3d(case.volume, matrix, dhw, layout="NCDHW", border_value=0.5)
    assert_agrees(result, case, reference.warp_coords(matrix, dhw), "linear", "constant", 0.5, "float32")
