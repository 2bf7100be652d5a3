"""Sampling grids: voxel coordinates turned into the normalised coordinates ``grid_sample`` reads.

Voxel centres sit at integer coordinates ``0 .. size-1``. With ``align_corners=False`` the normalised
coordinate of voxel ``x`` along an axis of ``size`` voxels is ``(2x + 1) / size - 1``, which stays
well defined for a one-voxel axis (``align_corners=True`` would divide by ``size - 1``).

Affine grids are built here rather than by ``F.affine_grid``, which multiplies every voxel's
homogeneous coordinate by ``theta`` in a batched matmul with an inner size of 4: on one thread that
took as long as the 3D sampling call itself. An affine map of a regular lattice is separable, so each
output coordinate is a small ``(D, H)`` table plus a ``W`` row, written in one broadcast add per
coordinate. The coordinates are stored as planes (``(3, D, H, W)``) and handed to the sampler as a
permuted view, which it reads through strides: the add runs along contiguous rows instead of an inner
axis of 3.
"""

from __future__ import annotations

import functools

import numpy as np
import torch


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


@functools.lru_cache(maxsize=64)
def _lattice(size: int) -> np.ndarray:
    """Normalised coordinates of the voxel centres along an axis of ``size`` voxels, in float64
    (read-only: the cache hands the same array to every call)."""
    values = (2.0 * np.arange(size) + 1.0) / size - 1.0
    values.flags.writeable = False
    return values


def _affine_planes(theta: np.ndarray, out_sizes: tuple[int, ...]) -> torch.Tensor:
    """``theta`` (normalised output -> normalised input, rows in coordinate order) evaluated on the
    output lattice, one float32 plane per coordinate: shape ``(coords, *out_sizes)``.

    ``out_sizes`` is in array order (``(D, H, W)`` or ``(H, W)``), so the last axis is x and
    ``theta``'s column for array axis ``i`` is ``len(out_sizes) - 1 - i``. The outer-axes table and
    the x row are computed in float64; one float32 broadcast add writes every plane.
    """
    count, rank = theta.shape[0], len(out_sizes)
    outer = (count, *[1] * (rank - 1))
    table = theta[:, -1].reshape(outer)
    for axis, size in enumerate(out_sizes[:-1]):
        shape = [1] * rank
        shape[axis + 1] = size
        table = table + theta[:, rank - 1 - axis].reshape(outer) * _lattice(size).reshape(shape[1:])
    along_x = np.multiply.outer(theta[:, 0], _lattice(out_sizes[-1])).reshape(*outer, -1)
    planes = torch.empty((count, *out_sizes), dtype=torch.float32)
    table_t = torch.from_numpy(table.astype(np.float32)).unsqueeze(-1)
    return torch.add(table_t, torch.from_numpy(along_x.astype(np.float32)), out=planes)


def affine_grid3d(
    inverse: np.ndarray, in_dhw: tuple[int, int, int], out_dhw: tuple[int, int, int]
) -> torch.Tensor:
    """A ``(1, D_out, H_out, W_out, 3)`` grid for the 3D map ``inverse`` (output voxel -> input voxel)."""
    theta = _normalised_theta(inverse, in_dhw[::-1], out_dhw[::-1])
    return _affine_planes(theta, out_dhw).permute(1, 2, 3, 0).unsqueeze(0)


def is_plane_warp(inverse: np.ndarray, in_depth: int, out_depth: int) -> bool:
    """Whether ``inverse`` warps every depth slice alike: z maps to itself and x, y ignore z."""
    z_is_kept = np.array_equal(inverse[2], [0.0, 0.0, 1.0, 0.0])
    return bool(z_is_kept and inverse[0, 2] == 0.0 and inverse[1, 2] == 0.0 and in_depth == out_depth)


def plane_inverse(inverse: np.ndarray) -> np.ndarray:
    """The ``(2, 3)`` (x, y) part of a plane warp's inverse: output pixel -> input pixel."""
    return inverse[:2][:, [0, 1, 3]]


def plane_grid(
    inverse: np.ndarray, in_hw: tuple[int, int], out_hw: tuple[int, int], *, planar: bool
) -> torch.Tensor:
    """A ``(1, H_out, W_out, 2)`` grid for the (x, y) part of a plane warp.

    ``planar`` hands over the two coordinate planes as a permuted view; otherwise the grid is copied
    into interleaved (x, y) pairs. Which layout the 2D sampler reads faster depends on how many planes
    share each grid point: the route chooses (see ``routers.PLANAR_GRID_ROUTES``).
    """
    theta = _normalised_theta(plane_inverse(inverse), in_hw[::-1], out_hw[::-1])
    planes = _affine_planes(theta, out_hw).permute(1, 2, 0)
    return (planes if planar else planes.contiguous()).unsqueeze(0)


def remap_grid(coords: torch.Tensor, in_dhw: tuple[int, int, int], *, in_place: bool) -> torch.Tensor:
    """Normalise a ``(D_out, H_out, W_out, 3)`` map of input (x, y, z) voxel coordinates in one pass.

    ``in_place`` overwrites ``coords``, for a buffer this call owns. The per-axis scale and offset
    are tiled along a whole row of W * 3 values, so the multiply-add runs over long contiguous rows
    rather than broadcasting over an inner axis of 3 (about ten times faster).
    """
    if not coords.is_contiguous():
        in_place, coords = True, coords.contiguous()  # the contiguous copy is this call's own buffer
    width = coords.shape[2]
    rows = coords.view(-1, width * 3)
    scale_row, offset_row = _normaliser_rows(tuple(in_dhw), width)
    normalised = torch.addcmul(offset_row, rows, scale_row, out=rows if in_place else None)
    return normalised.view(coords.shape).unsqueeze(0)


@functools.lru_cache(maxsize=64)
def _normaliser_rows(in_dhw: tuple[int, int, int], width: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The ``(x, y, z)`` scale and offset repeated along a row of ``width`` points, in float32.

    Cached because building them costs as much as normalising a small map; every call only reads them.
    """
    scale, offset = _normaliser(in_dhw[::-1])
    return (
        torch.from_numpy(np.tile(scale, width).astype(np.float32)),
        torch.from_numpy(np.tile(offset, width).astype(np.float32)),
    )
