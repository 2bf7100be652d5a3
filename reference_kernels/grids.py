"""Sampling grids: voxel coordinates turned into the normalised coordinates ``grid_sample`` reads.

Voxel centres sit at integer coordinates ``0 .. size-1``. With ``align_corners=False`` the normalised
coordinate of voxel ``x`` along an axis of ``size`` voxels is ``(2x + 1) / size - 1``, which stays
well defined for a one-voxel axis (``align_corners=True`` would divide by ``size - 1``).
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F


def _normaliser(sizes: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Per-axis ``scale`` and ``offset`` so that ``normalised = scale * voxel + offset``."""
    extent = np.asarray(sizes, dtype=np.float64)
    return 2.0 / extent, 1.0 / extent - 1.0


def _normalised_theta(inverse: np.ndarray, in_sizes: tuple[int, ...], out_sizes: tuple[int, ...]) -> np.ndarray:
    """Compose ``inverse`` (output voxel -> input voxel) with the normalisers on both sides.

    ``in_sizes``/``out_sizes`` are in coordinate order (x, y[, z]), matching ``inverse``'s rows.
    """
    in_scale, in_offset = _normaliser(in_sizes)
    out_scale, out_offset = _normaliser(out_sizes)
    linear, shift = inverse[:, :-1], inverse[:, -1]
    # output normalised n -> output voxel (n - out_offset) / out_scale -> input voxel -> input normalised
    theta_linear = in_scale[:, None] * linear / out_scale[None, :]
    theta_shift = in_scale * (shift - linear @ (out_offset / out_scale)) + in_offset
    return np.concatenate([theta_linear, theta_shift[:, None]], axis=1)


def affine_grid3d(
    inverse: np.ndarray, in_dhw: tuple[int, int, int], out_dhw: tuple[int, int, int]
) -> torch.Tensor:
    """A ``(1, D_out, H_out, W_out, 3)`` grid for the 3D map ``inverse`` (output voxel -> input voxel)."""
    theta = _normalised_theta(inverse, in_dhw[::-1], out_dhw[::-1])
    theta_t = torch.from_numpy(theta.astype(np.float32))[None]
    return F.affine_grid(theta_t, [1, 1, *out_dhw], align_corners=False)


def is_plane_warp(inverse: np.ndarray, in_depth: int, out_depth: int) -> bool:
    """Whether ``inverse`` warps every depth slice alike: z maps to itself and x, y ignore z."""
    z_is_kept = np.array_equal(inverse[2], [0.0, 0.0, 1.0, 0.0])
    return bool(z_is_kept and inverse[0, 2] == 0.0 and inverse[1, 2] == 0.0 and in_depth == out_depth)


def plane_grid(inverse: np.ndarray, in_hw: tuple[int, int], out_hw: tuple[int, int]) -> torch.Tensor:
    """A ``(1, H_out, W_out, 2)`` grid for the (x, y) part of a plane warp."""
    planar = inverse[:2][:, [0, 1, 3]]
    theta = _normalised_theta(planar, in_hw[::-1], out_hw[::-1])
    theta_t = torch.from_numpy(theta.astype(np.float32))[None]
    return F.affine_grid(theta_t, [1, 1, *out_hw], align_corners=False)


def remap_grid(coords: torch.Tensor, in_dhw: tuple[int, int, int]) -> torch.Tensor:
    """Normalise a ``(D_out, H_out, W_out, 3)`` map of input (x, y, z) voxel coordinates, in one pass."""
    scale, offset = _normaliser(in_dhw[::-1])
    scale_t = torch.tensor(scale, dtype=torch.float32)
    offset_t = torch.tensor(offset, dtype=torch.float32)
    return torch.addcmul(offset_t, coords, scale_t)[None]
