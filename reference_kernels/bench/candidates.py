"""What each benchmark region compares: the public call, the naive baseline, the alternatives a route
was chosen over, and non-Torch backends. Benchmark-only: no public route calls anything here.

Every Torch candidate runs the same validation and NumPy bridge as the public call, so a ratio
compares whole call chains, not kernels alone.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from ..grids import affine_grid3d, plane_grid, remap_grid
from ..layouts import as_working, from_working, spatial_shape
from ..routers import PLANAR_GRID_ROUTES, _plane_route, _sample_planes
from ..sampling import SamplerOptions, restore, sample, sampler_options, to_working
from ..validation import RemapRequest, WarpRequest, validate_remap, validate_warp

#: (work, grid, options) -> sampled float32 NCDHW; replaces the router's sampling step.
Sampler = Callable[[torch.Tensor, torch.Tensor, SamplerOptions], torch.Tensor]


def _request(call: dict) -> WarpRequest | RemapRequest:
    if call["function"] == "warp_affine3d":
        return validate_warp(call["volume"], call["matrix"], call["size"], call["layout"], *_sampling_args(call))
    return validate_remap(call["volume"], call["coords"], call["layout"], *_sampling_args(call))


def _sampling_args(call: dict) -> tuple:
    return call["interpolation"], call["border_mode"], call["border_value"]


def _grid(request: WarpRequest | RemapRequest) -> torch.Tensor:
    in_dhw = spatial_shape(tuple(request.volume.shape), request.layout)
    if isinstance(request, WarpRequest):
        return affine_grid3d(request.inverse, in_dhw, request.size)
    return remap_grid(request.coords, in_dhw, in_place=request.coords_owned)


def naive(call: dict):
    """One native rank-5 sampler call for everything: a grid per item, a second sampling pass for the
    fill mask, rounding in a separate pass. What a first implementation does."""
    request = _request(call)
    work = as_working(request.volume, request.layout)
    sampling = request.sampling
    with torch.no_grad():
        floats = work.to(torch.float32)
        grid = _grid(request).repeat(work.shape[0], 1, 1, 1, 1)
        options = sampler_options(sampling)
        out = sample(floats, grid, options)
        if options.fill is not None:
            inside = sample(torch.ones_like(floats[:, :1]), grid, options)
            out = out + torch.tensor(sampling.fill).view(1, -1, 1, 1, 1) * (1.0 - inside)
        if work.dtype == torch.uint8:
            out = torch.floor(out + 0.5).clamp(0, 255).to(torch.uint8)
        return from_working(out, request.layout)


def with_sampler(sampler: Sampler) -> Callable[[dict], object]:
    """The public chain with its sampling step replaced, to time one route against another."""

    def run(call: dict):
        request = _request(call)
        work = as_working(request.volume, request.layout)
        options = sampler_options(request.sampling)
        with torch.no_grad():
            sampled = sampler(to_working(work, options), _grid(request), options)
            return from_working(restore(sampled, work.dtype, request.layout, options), request.layout)

    return run


def with_plane_sampler(sampler: Sampler) -> Callable[[dict], object]:
    """The public chain of a plane warp with its 2D sampling step replaced."""

    def run(call: dict):
        request = _request(call)
        work = as_working(request.volume, request.layout)
        options = sampler_options(request.sampling)
        in_hw = spatial_shape(tuple(request.volume.shape), request.layout)[1:]
        with torch.no_grad():
            planar = _plane_route(work) in PLANAR_GRID_ROUTES
            grid = plane_grid(request.inverse, in_hw, request.size[1:], planar=planar)
            sampled = sampler(to_working(work, options), grid, options)
            return from_working(restore(sampled, work.dtype, request.layout, options), request.layout)

    return run


def planar_grid(work: torch.Tensor, grid: torch.Tensor, options: SamplerOptions) -> torch.Tensor:
    """The public plane route with the grid's x and y read from two coordinate planes (through a
    permuted view), for routes that read interleaved pairs."""
    planes = grid.permute(3, 0, 1, 2).contiguous().permute(1, 2, 3, 0)
    return _sample_planes(work, planes, options, _plane_route(work))


def interleaved_grid(work: torch.Tensor, grid: torch.Tensor, options: SamplerOptions) -> torch.Tensor:
    """The public plane route with the grid's x and y read as interleaved pairs, for routes that
    read two coordinate planes."""
    return _sample_planes(work, grid.contiguous(), options, _plane_route(work))


def plane_slices(work: torch.Tensor, grid: torch.Tensor, options: SamplerOptions) -> torch.Tensor:
    """Every depth slice a batch item of the 2D sampler with its C channels, one call per volume
    written into a preallocated output (one call in all for a lone volume)."""
    batch, channels, depth = work.shape[:3]
    out = torch.empty((batch, depth, channels, *grid.shape[1:3]), dtype=torch.float32)
    for item in range(batch):
        out[item] = sample(work[item].transpose(0, 1), grid.expand(depth, -1, -1, -1), options)
    return out.transpose(1, 2)


def plane_groups(per_item: int) -> Sampler:
    """The plane fold with up to ``per_item`` planes per batch item (the largest count that divides
    the planes) instead of the public route's count; needs N, C and D axes that merge as a view."""

    def run(work: torch.Tensor, grid: torch.Tensor, options: SamplerOptions) -> torch.Tensor:
        planes = work.shape[0] * work.shape[1] * work.shape[2]
        items = planes // max(d for d in range(1, min(per_item, planes) + 1) if planes % d == 0)
        stacked = work.view(items, planes // items, *work.shape[3:])
        sampled = sample(stacked, grid.expand(items, -1, -1, -1), options)
        return sampled.view(*work.shape[:3], *grid.shape[1:3])

    return run


def batched_3d(work: torch.Tensor, grid: torch.Tensor, options: SamplerOptions) -> torch.Tensor:
    """One rank-5 call over the batch with the grid shared as an expanded view (no folding)."""
    return sample(work, grid.expand(work.shape[0], -1, -1, -1, -1), options)


def fold_one_group(work: torch.Tensor, grid: torch.Tensor, options: SamplerOptions) -> torch.Tensor:
    """The whole single-channel batch folded into the channels of one volume, whatever the threads."""
    batch = work.shape[0]
    return sample(work.view(1, batch, *work.shape[2:]), grid, options).view(batch, 1, *grid.shape[1:4])


def fold_per_thread(work: torch.Tensor, grid: torch.Tensor, options: SamplerOptions) -> torch.Tensor:
    """The fold with one group per thread (where the count allows) however many channel volumes each
    group then holds: the public fold without its cap on channels per group."""
    volumes = work.shape[0] * work.shape[1]
    groups = max(d for d in range(1, min(torch.get_num_threads(), volumes) + 1) if volumes % d == 0)
    folded = work.reshape(groups, volumes // groups, *work.shape[2:])
    sampled = sample(folded, grid.expand(groups, -1, -1, -1, -1), options)
    return sampled.view(*work.shape[:2], *grid.shape[1:4])


def per_item_3d(work: torch.Tensor, grid: torch.Tensor, options: SamplerOptions) -> torch.Tensor:
    """One sampler call per batch item into a preallocated output, grid and fill prepared once."""
    out = torch.empty((work.shape[0], work.shape[1], *grid.shape[1:4]), dtype=torch.float32)
    for item in range(work.shape[0]):
        out[item] = sample(work[item : item + 1], grid, options)[0]
    return out


def scipy_ndimage(call: dict):
    """SciPy's ``affine_transform``/``map_coordinates`` per channel volume, float32 output."""
    from scipy import ndimage

    request = _request(call)
    work = as_working(request.volume, request.layout).numpy()
    sampling = request.sampling
    order = 1 if sampling.interpolation == "linear" else 0
    mode = "grid-constant" if sampling.border_mode == "constant" else "nearest"
    out_dhw = request.size if isinstance(request, WarpRequest) else tuple(request.coords.shape[:3])
    out = np.empty((*work.shape[:2], *out_dhw), dtype=np.float32)
    if isinstance(request, WarpRequest):
        zyx = request.inverse[::-1][:, [2, 1, 0, 3]]  # (x, y, z) rows and columns -> (z, y, x)
    else:
        zyx = np.moveaxis(request.coords.numpy()[..., ::-1], -1, 0)
    for item in range(work.shape[0]):
        for channel in range(work.shape[1]):
            source, fill = work[item, channel], sampling.fill[channel]
            if isinstance(request, WarpRequest):
                ndimage.affine_transform(
                    source, zyx[:, :3], zyx[:, 3], out_dhw, out[item, channel], order, mode, fill
                )
            else:
                ndimage.map_coordinates(source, zyx, out[item, channel], order, mode, fill)
    if work.dtype == np.uint8:
        out = np.clip(np.floor(out + 0.5), 0, 255).astype(np.uint8)
    return from_working(torch.from_numpy(out), request.layout)


def opencv_slices(call: dict):
    """OpenCV ``warpAffine`` on every depth slice of a NumPy ``NDHWC``/``DHWC`` plane warp (C <= 4)."""
    import cv2

    request = _request(call)
    sampling = request.sampling
    volume = request.volume if request.layout == "NDHWC" else request.volume[None]
    out = np.empty((volume.shape[0], *request.size, volume.shape[-1]), dtype=volume.dtype)
    inverse_2x3 = request.inverse[:2][:, [0, 1, 3]]
    flags = (cv2.INTER_LINEAR if sampling.interpolation == "linear" else cv2.INTER_NEAREST) | cv2.WARP_INVERSE_MAP
    border = cv2.BORDER_CONSTANT if sampling.border_mode == "constant" else cv2.BORDER_REPLICATE
    size_wh = (request.size[2], request.size[1])
    for item in range(volume.shape[0]):
        for depth in range(volume.shape[1]):
            cv2.warpAffine(
                volume[item, depth], inverse_2x3, size_wh, out[item, depth], flags, border, sampling.fill
            )
    return out if request.layout == "NDHWC" else out[0]
