"""Routers: send a validated request down the route the benchmark chose for its region.

Every function here is caller-prevalidated: the public functions in ``api`` checked the arguments,
so routers only dispatch (identity, empty batch, route predicates) and do kernel work, all under
``torch.no_grad()``. ``no_grad`` rather than ``inference_mode``: an inference tensor cannot be saved
for backward, so a result fed into a trainable module downstream would fail there.

Both native samplers parallelise over their batch axis only, and compute a point's interpolation
weights once for all of its channels. So the routes arrange each call's batch and channel axes, as
views of the caller's memory, to give every thread a share of the batch and to put several volumes
(or depth slices) behind each weight computation. Which route a request takes is decided by
:func:`warp_route` and :func:`remap_route`, which the routers dispatch on and the benchmark records.
"""

from __future__ import annotations

import numpy as np
import torch

from . import opencv_planes
from .grids import affine_grid3d, is_plane_warp, plane_grid, plane_inverse, remap_grid
from .layouts import as_working, empty_result, from_working, is_batched, spatial_shape
from .sampling import SamplerOptions, restore, sample, sampler_options, to_working
from .validation import RemapRequest, WarpRequest

_IDENTITY = np.eye(3, 4)

#: Batches of at least this many volumes fold the batch into the channel axis of the 3D sampler
#: (when the two axes merge as a view), split into one group per thread, or more to respect
#: ``FOLD_MAX_CHANNELS``.
#: Evidence for 2: fold ahead of batched-3d in warp-c1-n2@1, warp-c1-n4, warp-c3-n4, remap-c1-n4, remap-c3-n4@1
FOLD_MIN_BATCH = 2

#: A fold group holds at most this many channel volumes: the sampler gathers every output point's
#: neighbours from each of them, and past this many planes those reads stop sharing the cache, so
#: larger folds are split into more groups.
#: Evidence for 12: fold ahead of fold-per-thread in remap-c3-n8@1
FOLD_MAX_CHANNELS = 12

#: Depth slices handed to the 2D sampler per batch item when batch, channel and depth axes fold into
#: one: enough planes to share each point's weights, few enough that their rows stay in cache. Neither
#: neighbour wins everywhere: 32 planes per item was up to 13% faster on most 32x64x64 rows but 16 to
#: 29% slower on every 64x128x128 one, 8 up to 12% faster in one row and up to 14% slower in others,
#: while 16 beat one item per slice (plane-slices) in every row. Channel volumes whose depth does not
#: merge with their channels are sampled this many slices at a time too (no other count measured there).
#: Evidence for 16: plane-fold ahead of plane-slices in plane-c1-n4, plane-c3-n1, plane-c3-n4;
#:   plane-fold ahead of plane-8 in plane-c3-n1@2; plane-fold ahead of plane-32 in plane-c3-n1@2
PLANES_PER_ITEM = 16

#: Plane routes that hand the 2D sampler its grid as two coordinate planes rather than interleaved
#: (x, y) pairs. The sampler reads each grid point once per item, so the grid's layout counts where
#: an item holds few planes: one depth slice's channels in ``plane-merged``. Items of
#: ``PLANES_PER_ITEM`` slices (plane-fold, plane-volumes) read interleaved pairs faster.
#: Evidence for ("plane-merged",): plane-merged ahead of interleaved-grid in plane-c3-n16-numpy-small,
#:   plane-c6-n2-numpy
PLANAR_GRID_ROUTES = ("plane-merged",)


def warp_route(request: WarpRequest) -> str:  # torchperf: prevalidated
    """The route :func:`warp_router` takes for ``request`` at the current thread count."""
    return _plan_warp(request)[0]


def remap_route(request: RemapRequest) -> str:  # torchperf: prevalidated
    """The route :func:`remap_router` takes for ``request`` at the current thread count."""
    return _plan_remap(request)[0]


def _plan_warp(request: WarpRequest) -> tuple[str, torch.Tensor | None]:  # torchperf: prevalidated
    """The route for ``request`` and, for a Torch route, the working NCDHW view it samples."""
    volume, layout = request.volume, request.layout
    in_dhw = spatial_shape(tuple(volume.shape), layout)
    if request.size == in_dhw and np.array_equal(request.inverse, _IDENTITY):
        return "identity", None
    if is_batched(layout) and volume.shape[0] == 0:
        return "empty", as_working(volume, layout)
    planar = _is_linear_plane_warp(request, in_dhw)
    if planar and opencv_planes.can_warp(volume, layout):
        return "opencv-planes", None
    work = as_working(volume, layout)
    return (_plane_route(work) if planar else _volume_route(work, request.size[0])), work


def _plan_remap(request: RemapRequest) -> tuple[str, torch.Tensor | None]:  # torchperf: prevalidated
    work = as_working(request.volume, request.layout)
    return ("empty" if work.shape[0] == 0 else _volume_route(work, request.coords.shape[0])), work


def warp_router(request: WarpRequest) -> torch.Tensor | np.ndarray:  # torchperf: prevalidated
    volume, layout = request.volume, request.layout
    route, work = _plan_warp(request)
    if route == "identity":
        return volume
    if route == "empty":
        return _empty_batch(work, request.size, layout)
    if route == "opencv-planes":  # Route: opencv-planes
        return opencv_planes.warp(volume, layout, plane_inverse(request.inverse), request.size, request.sampling)
    in_dhw = spatial_shape(tuple(volume.shape), layout)
    options = sampler_options(request.sampling)
    with torch.no_grad():
        floats = to_working(work, options)
        if route.startswith("plane-"):
            planar = route in PLANAR_GRID_ROUTES
            grid = plane_grid(request.inverse, in_dhw[1:], request.size[1:], planar=planar)
            sampled = _sample_planes(floats, grid, options, route)
        else:
            grid = affine_grid3d(request.inverse, in_dhw, request.size)
            sampled = _sample_volumes(floats, grid, options, route)
        return from_working(restore(sampled, work.dtype, layout, options), layout)


def remap_router(request: RemapRequest) -> torch.Tensor | np.ndarray:  # torchperf: prevalidated
    volume, layout = request.volume, request.layout
    route, work = _plan_remap(request)
    if route == "empty":
        return _empty_batch(work, tuple(request.coords.shape[:3]), layout)
    options = sampler_options(request.sampling)
    with torch.no_grad():
        in_dhw = spatial_shape(tuple(volume.shape), layout)
        grid = remap_grid(request.coords, in_dhw, in_place=request.coords_owned)
        sampled = _sample_volumes(to_working(work, options), grid, options, route)
        return from_working(restore(sampled, work.dtype, layout, options), layout)


def _empty_batch(work: torch.Tensor, out_dhw: tuple[int, ...], layout: str) -> torch.Tensor | np.ndarray:
    return from_working(empty_result((0, work.shape[1], *out_dhw), work.dtype, layout), layout)


def _is_linear_plane_warp(request: WarpRequest, in_dhw: tuple[int, int, int]) -> bool:
    """Linear warps that move every depth slice alike go through the 2D sampler; nearest ones keep
    the 3D sampler, whose rounding of the (unchanged) z coordinate the 2D route could not reproduce."""
    linear = request.sampling.interpolation == "linear"
    return linear and is_plane_warp(request.inverse, in_dhw[0], request.size[0])


def _volume_route(work: torch.Tensor, out_depth: int) -> str:
    if _should_fold_batch(work):
        return "fold"
    return "depth-split" if _depth_parts(work.shape[0], out_depth) > 1 else "general-3d"


def _plane_route(work: torch.Tensor) -> str:
    if _can_merge(work, 0) and _can_merge(work, 1):
        return "plane-fold"
    return "plane-merged" if _can_merge(work.transpose(1, 2), 0) else "plane-volumes"


def _should_fold_batch(work: torch.Tensor) -> bool:
    return work.shape[0] >= FOLD_MIN_BATCH and _can_merge(work, 0)


def _threads_for(count: int) -> int:
    """How many equal groups to split ``count`` items into: one per thread where the count allows."""
    return _largest_divisor_up_to(count, torch.get_num_threads())


def _fold_groups(volumes: int) -> int:
    """How many groups to fold ``volumes`` channel volumes into: one per thread where the count
    allows, more where a group would hold over ``FOLD_MAX_CHANNELS``."""
    groups = _threads_for(volumes)
    while volumes // groups > FOLD_MAX_CHANNELS or volumes % groups:
        groups += 1
    return groups


def _largest_divisor_up_to(count: int, limit: int) -> int:
    return max(d for d in range(1, max(1, min(limit, count)) + 1) if count % d == 0)


def _depth_parts(batch: int, out_depth: int) -> int:
    """How many slabs of output depth to sample side by side for a lone volume.

    One volume gives the 3D sampler's batch-parallel loop one item, so it runs on one thread; slabs
    of output depth, with the input expanded (zero stride) under each, give it one per thread.
    """
    return _threads_for(out_depth) if batch == 1 else 1


def _can_merge(tensor: torch.Tensor, dim: int) -> bool:
    """Whether axes ``dim`` and ``dim + 1`` merge into one axis as a view (no copy): always when
    either has one element, otherwise when the outer stride steps over the whole inner axis."""
    outer, inner = tensor.size(dim), tensor.size(dim + 1)
    return outer == 1 or inner == 1 or tensor.stride(dim) == tensor.stride(dim + 1) * inner


def _sample_volumes(work: torch.Tensor, grid: torch.Tensor, options: SamplerOptions, route: str) -> torch.Tensor:
    """3D sampling of an NCDHW batch with one shared grid, in one sampler call.

    ``grid`` is a buffer this call made (never the caller's memory): the depth-split route may write
    its result there once sampling is done.
    """
    batch, channels = work.shape[:2]
    out_dhw = grid.shape[1:4]
    if route == "fold":  # Route: fold
        groups = _fold_groups(batch * channels)
        folded = work.reshape(groups, batch * channels // groups, *work.shape[2:])
        sampled = sample(folded, grid.expand(groups, -1, -1, -1, -1), options)
        return sampled.view(batch, channels, *out_dhw)
    if route == "depth-split":  # Route: depth-split
        parts = _depth_parts(batch, out_dhw[0])
        slabs = grid.reshape(parts, out_dhw[0] // parts, *grid.shape[2:])
        sampled = sample(work.expand(parts, -1, -1, -1, -1), slabs, options)
        return _channel_major(sampled, grid)
    return sample(work, grid.expand(batch, -1, -1, -1, -1), options)  # Route: general-3d


def _channel_major(slabs: torch.Tensor, grid: torch.Tensor) -> torch.Tensor:
    """Depth slabs ``(parts, C, depth / parts, H, W)`` as one ``(1, C, depth, H, W)`` volume.

    A single channel is a view. More channels come back slab-major, so they are copied into channel
    order; with three channels the grid, dead once sampling is done, holds exactly one float per
    result value, so the copy goes into the grid's buffer rather than a new one.
    """
    parts, channels, slab_depth, *out_hw = slabs.shape
    shape = (1, channels, parts * slab_depth, *out_hw)
    if channels == 1:
        return slabs.view(shape)
    if grid.untyped_storage().nbytes() != slabs.numel() * slabs.element_size() or grid.dtype != slabs.dtype:
        return slabs.transpose(0, 1).reshape(shape)
    result = grid.as_strided((slabs.numel(),), (1,), 0).view(channels, parts, slab_depth, *out_hw)
    return result.copy_(slabs.transpose(0, 1)).view(shape)


def _sample_planes(work: torch.Tensor, grid: torch.Tensor, options: SamplerOptions, route: str) -> torch.Tensor:
    """2D sampling of every depth slice with one shared plane grid; the result is a float32 NCDHW
    tensor this call owns, in whatever memory order the route produced it."""
    batch, channels, depth = work.shape[:3]
    out_hw = grid.shape[1:3]
    if route == "plane-fold":  # Route: plane-fold
        planes = batch * channels * depth
        per_item = _largest_divisor_up_to(planes, PLANES_PER_ITEM)
        stacked = work.reshape(planes // per_item, per_item, *work.shape[3:])
        sampled = sample(stacked, grid.expand(planes // per_item, -1, -1, -1), options)
        return sampled.view(batch, channels, depth, *out_hw)
    if route == "plane-merged":  # Route: plane-merged
        planes = work.transpose(1, 2).reshape(batch * depth, channels, *work.shape[3:])
        sampled = sample(planes, grid.expand(batch * depth, -1, -1, -1), options)
        return sampled.view(batch, depth, channels, *out_hw).transpose(1, 2)
    out = torch.empty((batch, channels, depth, *out_hw), dtype=torch.float32)
    for volumes, results in _channel_volumes(work, out):  # Route: plane-volumes
        volume_grid = grid.expand(volumes.shape[0], -1, -1, -1)
        for start in range(0, depth, PLANES_PER_ITEM):
            planes = slice(start, start + PLANES_PER_ITEM)
            results[:, planes] = sample(volumes[:, planes], volume_grid, options)
    return out


def _channel_volumes(work: torch.Tensor, out: torch.Tensor) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """``(volumes, D, H, W)`` stacks of channel volumes to sample, paired with where their results go.

    A channel volume is one item of the 2D sampler and its depth slices are that item's planes, so a
    stack is a view whatever the strides between channels. Batch and channels form one stack when they
    merge as a view, otherwise each batch item is its own stack.
    """
    if _can_merge(work, 0):
        return [(work.flatten(0, 1), out.flatten(0, 1))]
    return list(zip(work, out, strict=True))
