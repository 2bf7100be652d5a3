"""The benchmark matrix: one region per route (and per side of each threshold), with its candidates."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from .. import api, routers, validation
from . import candidates as alt

#: A rotation about a tilted axis with anisotropic scale: couples z with x and y (general 3D route).
GENERAL = np.array([[0.93, -0.21, 0.17, 0.71], [0.24, 0.88, -0.13, -0.43], [-0.11, 0.19, 1.07, 0.37]])
#: Rotation, scale and shift in (x, y) with z kept: the plane route.
PLANE = np.array([[0.91, -0.33, 0.0, 1.13], [0.29, 1.04, 0.0, -0.61], [0.0, 0.0, 1.0, 0.0]])

QUICK_DHW = (32, 64, 64)
FULL_DHW = (64, 128, 128)


@dataclass(frozen=True)
class Region:
    """A point of the matrix: the call and the rivals the public route is compared with there. The
    route the public call takes is not declared here: the benchmark asks the routers and records it."""

    id: str
    function: str
    layout: str
    batch: int
    channels: int
    dtype: str = "float32"
    matrix: str = "general"
    interpolation: str = "linear"
    border_mode: str = "constant"
    fill: float | tuple[float, ...] = 0.0
    rivals: tuple[str, ...] = ()
    full_only: bool = False
    #: Hand over every other channel of a buffer twice as wide: channels do not merge with depth.
    strided_channels: bool = False
    #: Height and width of every run (depth follows the run's size), for a side of a size threshold.
    plane_hw: tuple[int, int] | None = None


WARP, REMAP = "warp_affine3d", "remap3d"
#: The 2D-sampler arrangements a plane route was chosen over.
PLANE_RIVALS = ("plane-slices", "plane-8", "plane-32", "planar-grid", "volume-3d")

REGIONS = (
    Region("warp-c1-n1", WARP, "NCDHW", 1, 1, rivals=("batched-3d", "scipy")),
    Region("warp-c3-n1", WARP, "CDHW", 1, 3, rivals=("batched-3d",)),
    Region("warp-c1-n2", WARP, "NCDHW", 2, 1, rivals=("batched-3d",)),
    Region("warp-c1-n4", WARP, "NCDHW", 4, 1, rivals=("batched-3d", "fold-one-group", "scipy")),
    Region("warp-c3-n4", WARP, "NCDHW", 4, 3, rivals=("batched-3d", "per-item-3d", "scipy")),
    Region("warp-u8-c3-n2-fill", WARP, "NCDHW", 2, 3, "uint8", fill=(10.0, 200.0, 90.0), rivals=("batched-3d",)),
    Region("warp-c1-numpy", WARP, "DHWC", 1, 1, rivals=("batched-3d",)),
    Region("plane-c1-n4", WARP, "NCDHW", 4, 1, matrix="plane", rivals=PLANE_RIVALS),
    Region("plane-c3-n1", WARP, "CDHW", 1, 3, matrix="plane", rivals=PLANE_RIVALS),
    Region("plane-c3-n4", WARP, "NCDHW", 4, 3, matrix="plane", rivals=PLANE_RIVALS),
    Region(
        "plane-c3-n2-strided",
        WARP,
        "NCDHW",
        2,
        3,
        matrix="plane",
        strided_channels=True,
        rivals=("plane-slices", "planar-grid", "volume-3d"),
    ),
    Region("plane-c3-n4-numpy", WARP, "NDHWC", 4, 3, matrix="plane", rivals=("plane-slices", "volume-3d")),
    Region(
        "plane-u8-c3-n4-numpy-fill",
        WARP,
        "NDHWC",
        4,
        3,
        "uint8",
        matrix="plane",
        fill=(10.0, 200.0, 90.0),
        rivals=("plane-slices", "volume-3d"),
    ),
    Region(
        "plane-c3-n16-numpy-small",
        WARP,
        "NDHWC",
        16,
        3,
        matrix="plane",
        plane_hw=(16, 16),
        rivals=("opencv", "interleaved-grid"),
    ),
    Region("plane-c6-n2-numpy", WARP, "NDHWC", 2, 6, matrix="plane", rivals=("interleaved-grid", "volume-3d")),
    Region("plane-nearest-c3-n4", WARP, "NCDHW", 4, 3, matrix="plane", interpolation="nearest"),
    Region("remap-c1-n1", REMAP, "NCDHW", 1, 1, rivals=("batched-3d",)),
    Region("remap-c3-n1", REMAP, "CDHW", 1, 3, rivals=("batched-3d",)),
    Region("remap-c1-numpy", REMAP, "DHWC", 1, 1, rivals=("batched-3d",)),
    Region("remap-u8-c3-n1-replicate", REMAP, "CDHW", 1, 3, "uint8", border_mode="replicate"),
    Region("remap-c1-n4", REMAP, "NCDHW", 4, 1, rivals=("batched-3d", "scipy")),
    Region("remap-c3-n4", REMAP, "NCDHW", 4, 3, rivals=("batched-3d", "per-item-3d")),
    Region("remap-c3-n8", REMAP, "NCDHW", 8, 3, rivals=("batched-3d", "fold-per-thread"), full_only=True),
)

RIVALS: dict[str, Callable[[dict], object]] = {
    "naive": alt.naive,
    "batched-3d": alt.with_sampler(alt.batched_3d),
    "fold-one-group": alt.with_sampler(alt.fold_one_group),
    "per-item-3d": alt.with_sampler(alt.per_item_3d),
    "fold-per-thread": alt.with_sampler(alt.fold_per_thread),
    "volume-3d": alt.with_sampler(alt.batched_3d),  # a plane warp sent through the general 3D sampler
    "plane-slices": alt.with_plane_sampler(alt.plane_slices),
    "plane-8": alt.with_plane_sampler(alt.plane_groups(8)),
    "plane-32": alt.with_plane_sampler(alt.plane_groups(32)),
    "planar-grid": alt.with_plane_sampler(alt.planar_grid),
    "interleaved-grid": alt.with_plane_sampler(alt.interleaved_grid),
    "scipy": alt.scipy_ndimage,
    "opencv": alt.opencv_slices,
}
NON_TORCH = frozenset({"scipy", "opencv"})


def build_call(region: Region, dhw: tuple[int, int, int], seed: int = 0) -> dict:
    """The public call's arguments for ``region`` at spatial size ``dhw``."""
    rng = np.random.default_rng(seed)
    if region.plane_hw is not None:
        dhw = (dhw[0], *region.plane_hw)
    wide = 2 if region.strided_channels else 1
    ncdhw = (region.batch, region.channels * wide, *dhw)
    if region.dtype == "uint8":
        values = rng.integers(0, 256, ncdhw, dtype=np.uint8)
    else:
        values = rng.random(ncdhw, dtype=np.float32)
    values = values[:, ::wide]
    if region.layout in ("NCDHW", "CDHW"):
        volume = torch.from_numpy(values if region.strided_channels else np.ascontiguousarray(values))
    else:
        volume = np.ascontiguousarray(np.moveaxis(values, 1, -1))
    if region.layout in ("CDHW", "DHWC"):
        volume = volume[0]
    call = {
        "function": region.function,
        "volume": volume,
        "layout": region.layout,
        "interpolation": region.interpolation,
        "border_mode": region.border_mode,
        "border_value": list(region.fill) if isinstance(region.fill, tuple) else region.fill,
    }
    if region.function == WARP:
        call["matrix"] = GENERAL if region.matrix == "general" else PLANE
        call["size"] = dhw
    else:
        call["coords"] = _wobbly_coords(dhw, rng)
    return call


def output_size(call: dict) -> tuple[int, int, int]:
    """The spatial size of the result ``call`` returns: the run's size, except in a region that fixes
    the plane's height and width to sit on one side of a threshold."""
    return tuple(call["size"]) if call["function"] == WARP else tuple(call["coords"].shape[:3])


def _wobbly_coords(dhw: tuple[int, int, int], rng: np.random.Generator) -> np.ndarray:
    z, y, x = np.meshgrid(*(np.arange(s, dtype=np.float32) for s in dhw), indexing="ij")
    wobble = 1.5 * np.sin(0.2 * x + 0.3 * y - 0.1 * z)
    jitter = rng.uniform(-0.3, 0.3, (*dhw, 3)).astype(np.float32)
    return np.stack([x + wobble, y - wobble, z + 0.5 * wobble], axis=-1) + jitter


def public(call: dict):
    """The public function with the call's arguments: the route under test."""
    if call["function"] == WARP:
        return api.warp_affine3d(
            call["volume"], call["matrix"], call["size"], layout=call["layout"], **_options(call)
        )
    return api.remap3d(call["volume"], call["coords"], layout=call["layout"], **_options(call))


def route_of(call: dict) -> str:
    """The route the public call takes for ``call`` at the current thread count, as the routers decide it."""
    if call["function"] == WARP:
        request = validation.validate_warp(
            call["volume"], call["matrix"], call["size"], call["layout"], *_options(call).values()
        )
        return routers.warp_route(request)
    request = validation.validate_remap(call["volume"], call["coords"], call["layout"], *_options(call).values())
    return routers.remap_route(request)


def _options(call: dict) -> dict:
    return {key: call[key] for key in ("interpolation", "border_mode", "border_value")}
