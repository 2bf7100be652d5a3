"""Argument checks for the public functions: done once, before any router runs.

Every error names the argument it is about. Routers receive the validated request and never check again.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from .layouts import ARRAY_LAYOUTS, TENSOR_LAYOUTS, channel_axis, spatial_shape

INTERPOLATIONS = ("linear", "nearest")
BORDER_MODES = ("constant", "replicate")
_DTYPES = {torch.uint8, torch.float32}
_ARRAY_DTYPES = {np.dtype(np.uint8), np.dtype(np.float32)}
#: Inverses with a condition number above this are numerically singular for float32 sampling.
_MAX_CONDITION = 1e7


@dataclass(frozen=True)
class Sampling:
    """Options shared by both public functions, already checked."""

    interpolation: str
    border_mode: str
    fill: tuple[float, ...]  # one value per channel; all zero when the border is replicated


@dataclass(frozen=True)
class WarpRequest:
    volume: torch.Tensor | np.ndarray
    layout: str
    inverse: np.ndarray  # (3, 4) float64: output voxel (x, y, z, 1) -> input voxel (x, y, z)
    size: tuple[int, int, int]
    sampling: Sampling


@dataclass(frozen=True)
class RemapRequest:
    volume: torch.Tensor | np.ndarray
    layout: str
    coords: torch.Tensor  # (D_out, H_out, W_out, 3) float32, CPU
    coords_owned: bool  # False when ``coords`` shares the caller's buffer, which must stay untouched
    sampling: Sampling


def validate_warp(volume, matrix, size, layout, interpolation, border_mode, border_value) -> WarpRequest:
    channels = _check_volume(volume, layout)
    return WarpRequest(
        volume=volume,
        layout=layout,
        inverse=_inverse_affine(matrix),
        size=_check_size(size),
        sampling=_check_sampling(interpolation, border_mode, border_value, channels),
    )


def validate_remap(volume, coords, layout, interpolation, border_mode, border_value) -> RemapRequest:
    channels = _check_volume(volume, layout)
    checked_coords, owned = _check_coords(coords)
    return RemapRequest(
        volume=volume,
        layout=layout,
        coords=checked_coords,
        coords_owned=owned,
        sampling=_check_sampling(interpolation, border_mode, border_value, channels),
    )


def _check_volume(volume, layout) -> int:
    """Check container, layout, rank, dtype and placement; return the channel count."""
    if not isinstance(layout, str) or layout not in {**TENSOR_LAYOUTS, **ARRAY_LAYOUTS}:
        raise ValueError(f"layout must be one of 'CDHW', 'NCDHW', 'DHWC', 'NDHWC', got {layout!r}")
    if isinstance(volume, torch.Tensor):
        if layout not in TENSOR_LAYOUTS:
            raise ValueError(
                f"layout {layout!r} is for NumPy arrays; a torch.Tensor volume takes 'CDHW' or 'NCDHW'"
            )
        if volume.device.type != "cpu":
            raise ValueError(f"volume must be a CPU tensor, got one on {volume.device}")
        if volume.layout != torch.strided:
            raise ValueError(f"volume must be a dense (strided) tensor, got {volume.layout}")
        if volume.requires_grad:
            raise ValueError("volume requires grad; these routines do not record autograd, pass volume.detach()")
        if volume.dtype not in _DTYPES:
            raise TypeError(f"volume dtype must be torch.uint8 or torch.float32, got {volume.dtype}")
        rank = TENSOR_LAYOUTS[layout]
    elif isinstance(volume, np.ndarray):
        if layout not in ARRAY_LAYOUTS:
            raise ValueError(f"layout {layout!r} is for tensors; a NumPy volume takes 'DHWC' or 'NDHWC'")
        if volume.dtype not in _ARRAY_DTYPES:
            raise TypeError(f"volume dtype must be uint8 or float32 (native byte order), got {volume.dtype}")
        rank = ARRAY_LAYOUTS[layout]
    else:
        raise TypeError(f"volume must be a torch.Tensor or a numpy.ndarray, got {type(volume).__name__}")
    if volume.ndim != rank:
        raise ValueError(f"volume with layout {layout!r} must have rank {rank}, got shape {tuple(volume.shape)}")
    shape = tuple(volume.shape)
    if min(spatial_shape(shape, layout)) < 1 or shape[channel_axis(layout)] < 1:
        raise ValueError(f"volume must have at least one channel and one voxel, got shape {shape}")
    return shape[channel_axis(layout)]


def _inverse_affine(matrix) -> np.ndarray:
    try:
        forward = np.asarray(matrix, dtype=np.float64)
    except (TypeError, ValueError, RuntimeError) as error:
        raise TypeError(f"matrix must be array-like of numbers: {error}") from None
    if forward.shape not in ((3, 4), (4, 4)):
        raise ValueError(f"matrix must have shape (3, 4) or (4, 4), got {forward.shape}")
    if not np.isfinite(forward).all():
        raise ValueError("matrix must contain only finite values")
    if forward.shape == (4, 4):
        if not np.array_equal(forward[3], [0.0, 0.0, 0.0, 1.0]):
            raise ValueError(f"matrix bottom row must be [0, 0, 0, 1], got {forward[3].tolist()}")
        forward = forward[:3]
    try:
        linear = np.linalg.inv(forward[:, :3])
    except np.linalg.LinAlgError:
        linear = None
    # The 1-norm condition number, from the inverse computed anyway (an SVD would cost more than
    # the rest of the validation).
    if linear is None or _norm_1(forward[:, :3]) * _norm_1(linear) > _MAX_CONDITION:
        raise ValueError("matrix is not invertible (its 3x3 part is singular or nearly so)")
    return np.concatenate([linear, -linear @ forward[:, 3:]], axis=1)


def _norm_1(matrix: np.ndarray) -> float:
    """The matrix 1-norm: the largest column sum of absolute values."""
    return float(np.abs(matrix).sum(axis=0).max())


def _check_size(size) -> tuple[int, int, int]:
    if isinstance(size, str | bytes) or not isinstance(size, Sequence) or len(size) != 3:
        raise ValueError(f"size must be (depth, height, width), got {size!r}")
    if not all(isinstance(s, numbers.Integral) and not isinstance(s, bool) and s >= 1 for s in size):
        raise ValueError(f"size must hold three positive integers, got {size!r}")
    return tuple(int(s) for s in size)


def _check_coords(coords) -> tuple[torch.Tensor, bool]:
    """The coordinates as a tensor, and whether that tensor is a copy this call owns."""
    owned = False
    if isinstance(coords, np.ndarray):
        if coords.dtype != np.float32:
            raise TypeError(f"coords dtype must be float32, got {coords.dtype}")
        if not coords.flags.writeable or any(step < 0 for step in coords.strides):
            coords, owned = np.array(coords, copy=True), True
        tensor = torch.from_numpy(coords)
    elif isinstance(coords, torch.Tensor):
        if coords.device.type != "cpu" or coords.layout != torch.strided:
            raise ValueError(f"coords must be a dense CPU tensor, got one on {coords.device}")
        if coords.requires_grad:
            raise ValueError("coords requires grad; pass coords.detach()")
        if coords.dtype != torch.float32:
            raise TypeError(f"coords dtype must be torch.float32, got {coords.dtype}")
        tensor = coords
    else:
        raise TypeError(f"coords must be a numpy.ndarray or torch.Tensor, got {type(coords).__name__}")
    if tensor.ndim != 4 or tensor.shape[-1] != 3 or min(tensor.shape[:3]) < 1:
        raise ValueError(f"coords must have shape (D_out, H_out, W_out, 3), got {tuple(tensor.shape)}")
    # One reduction pass: a NaN or an infinity makes the sum non-finite. Finite values can overflow
    # the sum too, so only then does the exact element-wise check run.
    if not math.isfinite(tensor.sum()) and not bool(torch.isfinite(tensor).all()):
        raise ValueError("coords must contain only finite values")
    return tensor, owned


def _check_sampling(interpolation, border_mode, border_value, channels: int) -> Sampling:
    if interpolation not in INTERPOLATIONS:
        raise ValueError(f"interpolation must be 'linear' or 'nearest', got {interpolation!r}")
    if border_mode not in BORDER_MODES:
        raise ValueError(f"border_mode must be 'constant' or 'replicate', got {border_mode!r}")
    fill = _check_fill(border_value, channels)
    if border_mode == "replicate":
        fill = (0.0,) * channels
    return Sampling(interpolation, border_mode, fill)


def _check_fill(border_value, channels: int) -> tuple[float, ...]:
    values = [border_value] if _is_real(border_value) else border_value
    if isinstance(values, str | bytes) or not isinstance(values, Sequence | np.ndarray):
        raise TypeError(f"border_value must be a number or one number per channel, got {border_value!r}")
    values = list(values)
    if not all(_is_real(v) for v in values):
        raise TypeError(f"border_value must hold only numbers, got {border_value!r}")
    if len(values) not in (1, channels):
        raise ValueError(f"border_value must have 1 or {channels} values (one per channel), got {len(values)}")
    if not all(np.isfinite(float(v)) for v in values):
        raise ValueError("border_value must be finite")
    fill = tuple(float(v) for v in values)
    return fill * channels if len(fill) == 1 else fill


def _is_real(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)
