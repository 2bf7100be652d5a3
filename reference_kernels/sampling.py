"""The float32 working tensor, the sampler calls, and the one restoration to the caller's dtype.

A constant border with a non-zero fill is folded into passes that happen anyway: the input is shifted
by ``-fill`` while it is converted to float32 (``uint8 - float32`` promotes in the same kernel), the
sampler pads with zeros, and ``+fill`` rides on the final rounding add. Outside voxels then read
``0 + fill`` and inside ones read ``(v - fill) + fill``, with no mask and no second sampling call.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F

from .layouts import empty_result
from .validation import Sampling

_MODES = {"linear": "bilinear", "nearest": "nearest"}  # "bilinear" is trilinear on 5D input
_PADDING = {"constant": "zeros", "replicate": "border"}


@dataclass(frozen=True)
class SamplerOptions:
    """What every sampler call of one public call shares."""

    mode: str
    padding: str
    fill: torch.Tensor | None  # (1, C, 1, 1, 1) float32; None when the border reads zeros or replicates


def sampler_options(sampling: Sampling) -> SamplerOptions:
    fill = None
    if sampling.border_mode == "constant" and any(sampling.fill):
        fill = torch.tensor(sampling.fill, dtype=torch.float32).view(1, -1, 1, 1, 1)
    return SamplerOptions(_MODES[sampling.interpolation], _PADDING[sampling.border_mode], fill)


def to_working(volume: torch.Tensor, options: SamplerOptions) -> torch.Tensor:
    """The float32 tensor the sampler reads: the input itself when it already is one and no fill applies."""
    if options.fill is not None:
        return torch.sub(volume, options.fill)
    return volume if volume.dtype == torch.float32 else volume.to(torch.float32)


def sample(work: torch.Tensor, grid: torch.Tensor, options: SamplerOptions) -> torch.Tensor:
    """One native sampler call (2D for 4D input, 3D for 5D input)."""
    return F.grid_sample(work, grid, mode=options.mode, padding_mode=options.padding, align_corners=False)


def restore(sampled: torch.Tensor, dtype: torch.dtype, layout: str, options: SamplerOptions) -> torch.Tensor:
    """Undo the fill shift and return to ``dtype``: uint8 rounds half up and saturates exactly once.

    ``sampled`` is a fresh float32 NCDHW tensor owned by this call, so it is updated in place. A uint8
    result is written straight into memory ordered for the public ``layout``.
    """
    if dtype != torch.uint8:
        return sampled if options.fill is None else sampled.add_(options.fill)
    sampled.add_(0.5 if options.fill is None else options.fill + 0.5).clamp_(0.0, 255.0)
    result = empty_result(tuple(sampled.shape), torch.uint8, layout)
    return result.copy_(sampled)  # float -> uint8 truncates, which is floor on non-negative values
