"""The public functions: validate every argument once, then hand over to a caller-prevalidated router."""

from __future__ import annotations

import numpy as np
import torch

from .routers import remap_router, warp_router
from .validation import validate_remap, validate_warp

Volume = torch.Tensor | np.ndarray


def warp_affine3d(
    volume: Volume,
    matrix,
    size,
    *,
    layout: str,
    interpolation: str = "linear",
    border_mode: str = "constant",
    border_value=0.0,
) -> Volume:
    """Warp a volume (or a batch sharing one matrix) by a forward affine map of voxel coordinates.

    ``matrix`` is ``(3, 4)`` or ``(4, 4)`` and maps input ``(x, y, z)`` voxel centres (x along W, y
    along H, z along D) to output ones; each output voxel samples the input at the inverse map of its
    own coordinates. ``size`` is the output ``(depth, height, width)``. ``layout`` is ``"CDHW"`` or
    ``"NCDHW"`` for a CPU tensor, ``"DHWC"`` or ``"NDHWC"`` for a NumPy array; it is never inferred.
    uint8 and float32 are preserved (uint8 is computed in float32, rounded half up and saturated once).
    An exact identity with unchanged size returns ``volume`` itself; otherwise the result is new and
    ``volume`` is never modified. No autograd is recorded. Raises ValueError/TypeError naming the
    argument.
    """
    return warp_router(validate_warp(volume, matrix, size, layout, interpolation, border_mode, border_value))


def remap3d(
    volume: Volume,
    coords,
    *,
    layout: str,
    interpolation: str = "linear",
    border_mode: str = "constant",
    border_value=0.0,
) -> Volume:
    """Sample a volume (or a batch sharing one map) at explicit input coordinates: a 3D ``remap``.

    ``coords`` is a float32 ``(D_out, H_out, W_out, 3)`` array or CPU tensor holding, for each output
    voxel, the input ``(x, y, z)`` voxel coordinates to read. Layouts, dtypes, borders, mutation and
    errors are as in :func:`warp_affine3d`; the output is always newly allocated.
    """
    return remap_router(validate_remap(volume, coords, layout, interpolation, border_mode, border_value))
