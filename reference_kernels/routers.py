"""Routers: send a validated request down the route the benchmark chose for its region.

Every function here is caller-prevalidated: the public functions in ``api`` checked the arguments,
so routers only dispatch (identity, empty batch, route predicates) and do kernel work, all under
``torch.no_grad()``. ``no_grad`` rather than ``inference_mode``: an inference tensor cannot be saved
for backward, so a result fed into a trainable module downstream would fail there.
"""

from __future__ import annotations

import numpy as np
import torch

from .grids import affine_grid3d, is_plane_warp, plane_grid, remap_grid
from .layouts import as_working, empty_result, from_working, spatial_shape
from .sampling import SamplerOptions, restore, sample, sampler_options, to_working
from .validation import RemapRequest, WarpRequest

_IDENTITY = np.eye(3, 4)

#: Single-channel batches of at least this many volumes fold the batch into the channel axis. With
#: 2 threads a batch of 2 makes 2 groups of one volume, which is the plain batched call.
#: Evidence for 2: fold ahead of naive in warp-c1-n2@1, warp-c1-n4@1, remap-c1-n4@1;
#:   fold ahead of batched-3d in warp-c1-n2@1, warp-c1-n4@1, remap-c1-n4@1
FOLD_MIN_BATCH = 2


def _should_fold_batch(batch: int, channels: int) -> bool:
    return channels == 1 and batch >= FOLD_MIN_BATCH


def _fold_groups(batch: int) -> int:
    """How many groups to fold a batch into: the 3D sampler parallelises over its batch axis only,
    so one group per thread keeps every thread busy while each group shares the grid work."""
    return _largest_divisor_up_to(batch, torch.get_num_threads())


def _depth_parts(batch: int, out_depth: int) -> int:
    """How many slabs of output depth to sample side by side for a lone volume.

    One volume gives the 3D sampler's batch-parallel loop one item, so it runs on one thread; slabs
    of output depth, with the input expanded (zero stride) under each, give it one per thread.
    Evidence (results/HANDOFF.md, 2 threads, public/naive at 32x64x64 and 64x128x128): warp-c1-n1
    0.84/0.76, remap-c1-n1 0.81/0.64, and warp-c3-n1 0.74/0.65, where putting multi-channel slabs back
    in order costs one output-sized copy and still wins.
    """
    return _largest_divisor_up_to(out_depth, torch.get_num_threads()) if batch == 1 else 1


def _largest_divisor_up_to(count: int, limit: int) -> int:
    return max(d for d in range(1, max(1, min(limit, count)) + 1) if count % d == 0)


def _can_merge(tensor: torch.Tensor, dim: int) -> bool:
    """Whether axes ``dim`` and ``dim + 1`` merge into one axis as a view (no copy)."""
    return tensor.size(dim + 1) == 1 or tensor.stride(dim) == tensor.stride(dim + 1) * tensor.size(dim + 1)


def warp_router(request: WarpRequest) -> torch.Tensor | np.ndarray:  # torchperf: prevalidated
    volume, layout = request.volume, request.layout
    in_dhw = spatial_shape(tuple(volume.shape), layout)
    if request.size == in_dhw and np.array_equal(request.inverse, _IDENTITY):
        return volume
    work = as_working(volume, layout)
    if work.shape[0] == 0:
        return from_working(empty_result((0, work.shape[1], *request.size), work.dtype, layout), layout)
    options = sampler_options(request.sampling)
    with torch.no_grad():
        floats = to_working(work, options)
        if options.mode == "bilinear" and is_plane_warp(request.inverse, in_dhw[0], request.size[0]):
            grid = plane_grid(request.inverse, in_dhw[1:], request.size[1:])
            sampled = _sample_planes(floats, grid, options)
        else:
            sampled = _sample_volumes(floats, affine_grid3d(request.inverse, in_dhw, request.size), options)
        return from_working(restore(sampled, work.dtype, layout, options), layout)


def remap_router(request: RemapRequest) -> torch.Tensor | np.ndarray:  # torchperf: prevalidated
    volume, layout = request.volume, request.layout
    work = as_working(volume, layout)
    out_dhw = tuple(request.coords.shape[:3])
    if work.shape[0] == 0:
        return from_working(empty_result((0, work.shape[1], *out_dhw), work.dtype, layout), layout)
    options = sampler_options(request.sampling)
    with torch.no_grad():
        grid = remap_grid(request.coords, spatial_shape(tuple(volume.shape), layout))
        sampled = _sample_volumes(to_working(work, options), grid, options)
        return from_working(restore(sampled, work.dtype, layout, options), layout)


def _sample_volumes(work: torch.Tensor, grid: torch.Tensor, options: SamplerOptions) -> torch.Tensor:
    """3D sampling of an NCDHW batch with one shared grid: one sampler call either way."""
    batch, channels = work.shape[:2]
    out_dhw = grid.shape[1:4]
    if _should_fold_batch(batch, channels):  # Route: fold
        groups = _fold_groups(batch)
        folded = work.view(groups, batch // groups, *work.shape[2:])
        sampled = sample(folded, grid.expand(groups, -1, -1, -1, -1), options)
        return sampled.view(batch, 1, *out_dhw)
    parts = _depth_parts(batch, out_dhw[0])
    if parts > 1:  # Route: depth-split
        slabs = grid.view(parts, out_dhw[0] // parts, *grid.shape[2:])
        sampled = sample(work.expand(parts, -1, -1, -1, -1), slabs, options)
        return sampled.transpose(0, 1).reshape(1, channels, *out_dhw)  # a view when channels == 1
    return sample(work, grid.expand(batch, -1, -1, -1, -1), options)  # Route: general-3d


def _sample_planes(work: torch.Tensor, grid: torch.Tensor, options: SamplerOptions) -> torch.Tensor:
    """2D sampling of every depth slice with one shared plane grid."""
    batch, channels, depth = work.shape[:3]
    slices = work.transpose(1, 2)  # N, D, C, H, W
    if channels == 1 and _can_merge(slices, 0):  # Route: plane-fold
        planes = slices.reshape(1, batch * depth, *work.shape[3:])
        return sample(planes, grid, options).view(batch, depth, 1, *grid.shape[1:3]).transpose(1, 2)
    if _can_merge(slices, 0):  # Route: plane-merged
        planes = slices.reshape(batch * depth, channels, *work.shape[3:])
        sampled = sample(planes, grid.expand(batch * depth, -1, -1, -1), options)
        return sampled.view(batch, depth, channels, *grid.shape[1:3]).transpose(1, 2)
    out = torch.empty((batch, depth, channels, *grid.shape[1:3]), dtype=torch.float32)
    per_volume_grid = grid.expand(depth, -1, -1, -1)
    for item in range(batch):  # Route: plane-per-volume
        out[item] = sample(slices[item], per_volume_grid, options)
    return out.transpose(1, 2)
