"""The benchmark matrix: one region per route (and per side of each threshold), with its candidates."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch

from .. import api
from . import candidates as alt

#: A rotation about a tilted axis with anisotropic scale: couples z with x and y (general 3D route).
GENERAL = np.array([[0.93, -0.21, 0.17, 0.71], [0.24, 0.88, -0.13, -0.43], [-0.11, 0.19, 1.07, 0.37]])
#: Rotation, scale and shift in (x, y) with z kept: the plane route.
PLANE = np.array([[0.91, -0.33, 0.0, 1.13], [0.29, 1.04, 0.0, -0.61], [0.0, 0.0, 1.0, 0.0]])

QUICK_DHW = (32, 64, 64)
FULL_DHW = (64, 128, 128)


@dataclass(frozen=True)
class Region:
    """A point of the matrix: the call, the route the public function takes there, and the rivals."""

    id: str
    route: str
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
    single_thread_route: str | None = None  # the route taken instead when only one thread runs
    extra: dict = field(default_factory=dict)


REGIONS = (
    Region(
        "warp-c1-n1",
        "depth-split",
        "warp_affine3d",
        "NCDHW",
        1,
        1,
        rivals=("batched-3d", "scipy"),
        single_thread_route="general-3d",
    ),
    Region(
        "warp-c3-n1",
        "depth-split",
        "warp_affine3d",
        "NCDHW",
        1,
        3,
        rivals=("batched-3d",),
        single_thread_route="general-3d",
    ),
    Region("warp-c1-n2", "fold", "warp_affine3d", "NCDHW", 2, 1, rivals=("batched-3d",)),
    Region("warp-c1-n4", "fold", "warp_affine3d", "NCDHW", 4, 1, rivals=("batched-3d", "fold-one-group", "scipy")),
    Region("warp-c3-n4", "general-3d", "warp_affine3d", "NCDHW", 4, 3, rivals=("per-item-3d", "scipy")),
    Region("warp-u8-c3-n2-fill", "general-3d", "warp_affine3d", "NCDHW", 2, 3, "uint8", fill=(10.0, 200.0, 90.0)),
    Region("plane-c1-n4", "plane-fold", "warp_affine3d", "NCDHW", 4, 1, matrix="plane", rivals=("volume-3d",)),
    Region(
        "plane-c3-n4-torch",
        "plane-per-volume",
        "warp_affine3d",
        "NCDHW",
        4,
        3,
        matrix="plane",
        rivals=("volume-3d",),
    ),
    Region(
        "plane-c3-n4-numpy",
        "plane-merged",
        "warp_affine3d",
        "NDHWC",
        4,
        3,
        matrix="plane",
        rivals=("volume-3d", "opencv"),
    ),
    Region(
        "plane-u8-c3-n4-numpy-fill",
        "plane-merged",
        "warp_affine3d",
        "NDHWC",
        4,
        3,
        "uint8",
        matrix="plane",
        fill=(10.0, 200.0, 90.0),
        rivals=("volume-3d", "opencv"),
    ),
    Region(
        "plane-nearest-c3-n4",
        "general-3d",
        "warp_affine3d",
        "NCDHW",
        4,
        3,
        matrix="plane",
        interpolation="nearest",
    ),
    Region(
        "remap-c1-n1",
        "depth-split",
        "remap3d",
        "NCDHW",
        1,
        1,
        rivals=("batched-3d",),
        single_thread_route="general-3d",
    ),
    Region("remap-c1-n4", "fold", "remap3d", "NCDHW", 4, 1, rivals=("batched-3d", "scipy")),
    Region("remap-c3-n4", "general-3d", "remap3d", "NCDHW", 4, 3, rivals=("per-item-3d",)),
    Region("remap-c3-n8", "general-3d", "remap3d", "NCDHW", 8, 3, rivals=("per-item-3d",), full_only=True),
)

RIVALS: dict[str, Callable[[dict], object]] = {
    "naive": alt.naive,
    "batched-3d": alt.with_sampler(alt.batched_3d),
    "fold-one-group": alt.with_sampler(alt.fold_one_group),
    "per-item-3d": alt.with_sampler(alt.per_item_3d),
    "volume-3d": alt.with_sampler(alt.batched_3d),  # a plane warp sent through the general 3D sampler
    "scipy": alt.scipy_ndimage,
    "opencv": alt.opencv_slices,
}
NON_TORCH = frozenset({"scipy", "opencv"})


def build_call(region: Region, dhw: tuple[int, int, int], seed: int = 0) -> dict:
    """The public call's arguments for ``region`` at spatial size ``dhw``."""
    rng = np.random.default_rng(seed)
    ncdhw = (region.batch, region.channels, *dhw)
    if region.dtype == "uint8":
        values = rng.integers(0, 256, ncdhw, dtype=np.uint8)
    else:
        values = rng.random(ncdhw, dtype=np.float32)
    volume = (
        torch.from_numpy(values) if region.layout == "NCDHW" else np.ascontiguousarray(np.moveaxis(values, 1, -1))
    )
    call = {
        "function": region.function,
        "volume": volume,
        "layout": region.layout,
        "interpolation": region.interpolation,
        "border_mode": region.border_mode,
        "border_value": list(region.fill) if isinstance(region.fill, tuple) else region.fill,
    }
    if region.function == "warp_affine3d":
        call["matrix"] = GENERAL if region.matrix == "general" else PLANE
        call["size"] = dhw
    else:
        call["coords"] = _wobbly_coords(dhw, rng)
    return call


def _wobbly_coords(dhw: tuple[int, int, int], rng: np.random.Generator) -> np.ndarray:
    z, y, x = np.meshgrid(*(np.arange(s, dtype=np.float32) for s in dhw), indexing="ij")
    wobble = 1.5 * np.sin(0.2 * x + 0.3 * y - 0.1 * z)
    jitter = rng.uniform(-0.3, 0.3, (*dhw, 3)).astype(np.float32)
    return np.stack([x + wobble, y - wobble, z + 0.5 * wobble], axis=-1) + jitter


def public(call: dict):
    """The public function with the call's arguments: the route under test."""
    if call["function"] == "warp_affine3d":
        return api.warp_affine3d(
            call["volume"], call["matrix"], call["size"], layout=call["layout"], **_options(call)
        )
    return api.remap3d(call["volume"], call["coords"], layout=call["layout"], **_options(call))


def _options(call: dict) -> dict:
    return {key: call[key] for key in ("interpolation", "border_mode", "border_value")}
