"""Small kernels, each with one trait the probe must see (or must not)."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

#: Where ``resize_inference_above`` switches to ``inference_mode``, in output voxels.
INFERENCE_FROM = 1000


def resize_inference(volume: torch.Tensor, size: tuple[int, int, int]) -> torch.Tensor:
    """A resize that runs under ``inference_mode``, as albucore 0.2.13's ``resize3d`` did."""
    with torch.inference_mode():
        return F.interpolate(volume.unsqueeze(0), size=size, mode="trilinear", align_corners=False)[0]


def resize_no_grad(volume: torch.Tensor, size: tuple[int, int, int]) -> torch.Tensor:
    """The same resize under ``no_grad``, as the contract asks."""
    with torch.no_grad():
        return F.interpolate(volume.unsqueeze(0), size=size, mode="trilinear", align_corners=False)[0]


def resize_inference_above(volume: torch.Tensor, size: tuple[int, int, int]) -> torch.Tensor:
    """``inference_mode`` on one side of a size threshold only."""
    if size[0] * size[1] * size[2] >= INFERENCE_FROM:
        return resize_inference(volume, size)
    return resize_no_grad(volume, size)


def scale_channels_last(volume: torch.Tensor) -> torch.Tensor:
    """``2 * volume`` computed on a channels-last view: no copy of the input."""
    with torch.no_grad():
        return volume.permute(1, 2, 3, 0).mul(2.0).permute(3, 0, 1, 2)


def scale_channels_last_copied(volume: torch.Tensor) -> torch.Tensor:
    """The same with one defensive ``.contiguous()`` of the permuted volume."""
    with torch.no_grad():
        return volume.permute(1, 2, 3, 0).contiguous().mul(2.0).permute(3, 0, 1, 2)


def trainable_scale(volume: torch.Tensor) -> torch.Tensor:
    """Records autograd: a weight that requires grad."""
    weight = torch.ones((), requires_grad=True)
    return volume * weight


def reads_values(volume: torch.Tensor) -> torch.Tensor:
    """Reads tensor values into Python four times."""
    with torch.no_grad():
        high = float(volume.max())
        corner = volume[0, 0, 0].tolist()
        if bool((volume < 0).any()):
            raise ValueError("negative")
        return volume / (high + volume.min().item() + len(corner))


def through_meta(volume: torch.Tensor) -> torch.Tensor:
    """A transfer off the CPU (to the meta device, which every build has) and back."""
    with torch.no_grad():
        return torch.empty_like(volume.to("meta"), device="cpu").copy_(volume)


def clamps_in_place(volume: torch.Tensor) -> torch.Tensor:
    """Writes into its input (which already lies in [0, 1], so the values do not change)."""
    with torch.no_grad():
        return volume.clamp_(0.0, 1.0)


def halves_in_place(volume: torch.Tensor) -> torch.Tensor:
    """Writes into its input and changes it."""
    with torch.no_grad():
        return volume.mul_(0.5)


def one_thread(volume: torch.Tensor) -> torch.Tensor:
    """Sets torch's thread count around its work and restores it."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with torch.no_grad():
            return volume + 1
    finally:
        torch.set_num_threads(threads)


def numpy_twice(volume: np.ndarray) -> np.ndarray:
    """A NumPy result allocated by NumPy, written through torch."""
    out = np.empty_like(volume)
    torch.mul(torch.from_numpy(volume), 2.0, out=torch.from_numpy(out))
    return out
