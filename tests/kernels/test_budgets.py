"""Every route's allocation and copy budget, pinned by the runtime probe on one small call.

Sizes: a 4x6x8 (or 5x6x8) volume, so a float32 channel volume is 768 bytes; a 3D grid holds 12 bytes
per output voxel, a plane grid 8 bytes per pixel (built as coordinate planes, then interleaved). The
small float32 tables the grids are added from cross over from NumPy (``torch.from_numpy``).
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torchperf_lint.reference_kernels import opencv_planes, remap3d, warp_affine3d  # noqa: E402
from torchperf_lint.reference_kernels.bench.regions import GENERAL, PLANE  # noqa: E402

from torchperf_lint.probe import probe  # noqa: E402

VOXELS = 4 * 6 * 8
GRID_3D = [("aten.empty", VOXELS * 12), ("torch.from_numpy", 3 * 4 * 6 * 4), ("torch.from_numpy", 3 * 8 * 4)]
PLANAR_GRID_2D = [("aten.empty", 6 * 8 * 8), ("torch.from_numpy", 2 * 6 * 4), ("torch.from_numpy", 2 * 8 * 4)]
GRID_2D = [*PLANAR_GRID_2D, ("aten.clone", 6 * 8 * 8)]  # coordinate planes copied into interleaved pairs
COORDS = np.random.default_rng(0).uniform(0, 4, (4, 6, 8, 3)).astype(np.float32)
CHECK = [("aten.sum", 4), ("aten.addcmul", VOXELS * 12)]  # remap3d: check, normalise


def call(route: str):
    """The public call that takes ``route`` at 2 threads."""
    if route == "general-3d":
        return warp_affine3d, torch.rand(3, 5, 6, 8), GENERAL, (5, 6, 8), {"layout": "CDHW"}
    if route == "depth-split":
        return warp_affine3d, torch.rand(1, 4, 6, 8), GENERAL, (4, 6, 8), {"layout": "CDHW"}
    if route == "depth-split-channels":
        return warp_affine3d, torch.rand(3, 4, 6, 8), GENERAL, (4, 6, 8), {"layout": "CDHW"}
    if route == "fold":
        return warp_affine3d, torch.rand(2, 3, 4, 6, 8), GENERAL, (4, 6, 8), {"layout": "NCDHW"}
    if route == "fold-uint8-fill":
        volume = torch.randint(0, 256, (2, 3, 4, 6, 8), dtype=torch.uint8)
        return warp_affine3d, volume, GENERAL, (4, 6, 8), {"layout": "NCDHW", "border_value": [1.0, 2.0, 3.0]}
    if route in ("plane-fold", "plane-merged", "opencv-planes"):
        volume = torch.rand(3, 4, 6, 8) if route == "plane-fold" else np.random.rand(4, 6, 8, 3).astype(np.float32)
        return warp_affine3d, volume, PLANE, (4, 6, 8), {"layout": "CDHW" if route == "plane-fold" else "DHWC"}
    if route == "plane-volumes":
        return warp_affine3d, torch.rand(2, 6, 4, 6, 8)[:, ::2], PLANE, (4, 6, 8), {"layout": "NCDHW"}
    volume = torch.rand(1, 4, 6, 8) if route == "remap-depth-split" else torch.rand(2, 1, 4, 6, 8)
    return remap3d, volume, COORDS, {"layout": "CDHW" if route == "remap-depth-split" else "NCDHW"}


BUDGETS = {
    # route: (buffers, bytes inside operations, full-size copies, full-size passes)
    "general-3d": ([("aten.empty", 5 * 6 * 8 * 12), ("torch.from_numpy", 3 * 5 * 6 * 4), ("torch.from_numpy", 96),
                    ("aten.grid_sampler_3d", 3 * 5 * 6 * 8 * 4)], 0, [], 2),
    "depth-split": ([*GRID_3D, ("aten.grid_sampler_3d", VOXELS * 4)], 0, [], 2),
    # channels come back slab-major and are copied back channel-major into the grid's buffer, which
    # holds exactly one float per value of a three-channel result: no buffer beyond the grid and the sampler's
    "depth-split-channels": ([*GRID_3D, ("aten.grid_sampler_3d", 3 * VOXELS * 4)], 0, ["aten.copy_"], 3),
    "fold": ([*GRID_3D, ("aten.grid_sampler_3d", 6 * VOXELS * 4)], 0, [], 1),
    # the shifted float32 working copy, whose uint8 - float32 promotion casts the input inside aten.sub,
    # and one converting copy into the uint8 result
    "fold-uint8-fill": ([("torch.tensor", 12), ("aten.sub", 6 * VOXELS * 4), *GRID_3D,
                         ("aten.grid_sampler_3d", 6 * VOXELS * 4), ("aten.add", 12), ("aten.empty", 6 * VOXELS)],
                        6 * VOXELS * 4 + 20, ["aten.copy_"], 5),
    "plane-fold": ([*GRID_2D, ("aten.grid_sampler_2d", 3 * VOXELS * 4)], 0, [], 1),
    "plane-merged": ([*PLANAR_GRID_2D, ("aten.grid_sampler_2d", 3 * VOXELS * 4)], 0, [], 1),
    # each group of slices is sampled into its own result and copied into the output
    "plane-volumes": ([*GRID_2D, ("aten.empty", 6 * VOXELS * 4), ("aten.grid_sampler_2d", 6 * VOXELS * 4)], 0,
                      ["aten.copy_"], 2),
    "opencv-planes": ([("numpy", 3 * VOXELS * 4)], 0, [], 0),
    "remap-depth-split": ([*CHECK, ("aten.grid_sampler_3d", VOXELS * 4)], 0, [], 3),
    "remap-fold": ([*CHECK, ("aten.grid_sampler_3d", 2 * VOXELS * 4)], 0, [], 3),
}  # fmt: skip


@pytest.fixture
def two_threads(monkeypatch):
    monkeypatch.setattr(torch, "get_num_threads", lambda: 2)


@pytest.mark.parametrize("route", sorted(BUDGETS))
def test_each_route_allocates_and_copies_exactly_its_budget(route, two_threads, monkeypatch):
    monkeypatch.setattr(opencv_planes, "_AVAILABLE", opencv_planes._AVAILABLE and route == "opencv-planes")
    if route == "opencv-planes" and not opencv_planes._AVAILABLE:
        pytest.skip("OpenCV 5 or newer is not installed")
    monkeypatch.setattr(opencv_planes, "OPENCV_MIN_SLICE_VOXELS", 1)
    function, *args, kwargs = call(route)
    report = probe(function, *args, **kwargs)
    buffers, inside, copies, passes = BUDGETS[route]
    assert [(a.op, a.nbytes) for a in report.allocations] == buffers
    assert report.internal_bytes == inside
    assert [op.name for op in report.full_size_copies] == copies
    assert report.full_size_passes == passes
    assert report.breaches == ()  # no inference outputs, no graph, every result feeds backward and takes updates
    assert report.host_reads == ({"__float__": 1} if function is remap3d else {})  # remap3d's one-pass check
