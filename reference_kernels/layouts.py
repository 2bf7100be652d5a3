"""The four public volume layouts and the zero-copy views between them and the working NCDHW tensor."""

from __future__ import annotations

import numpy as np
import torch

#: Layout name -> rank, for each container. The layout is always an argument; it is never guessed.
TENSOR_LAYOUTS = {"CDHW": 4, "NCDHW": 5}
ARRAY_LAYOUTS = {"DHWC": 4, "NDHWC": 5}

#: Working NCDHW axes -> the public layout's axes (for permute) when the container is a NumPy array.
_TO_ARRAY_AXES = (0, 2, 3, 4, 1)
_FROM_ARRAY_AXES = (0, 4, 1, 2, 3)


def is_batched(layout: str) -> bool:
    return layout in ("NCDHW", "NDHWC")


def channel_axis(layout: str) -> int:
    return {"CDHW": 0, "NCDHW": 1, "DHWC": 3, "NDHWC": 4}[layout]


def spatial_shape(shape: tuple[int, ...], layout: str) -> tuple[int, int, int]:
    """``(depth, height, width)`` of a volume in ``layout``."""
    start = 1 if is_batched(layout) else 0
    if layout in ARRAY_LAYOUTS:
        return tuple(shape[start : start + 3])
    return tuple(shape[start + 1 : start + 4])


def as_working(volume: torch.Tensor | np.ndarray, layout: str) -> torch.Tensor:
    """View ``volume`` as an NCDHW tensor without copying when the buffer allows it.

    NumPy buffers with negative strides or that are read-only cannot be shared with Torch; they are
    copied exactly once here (a read-only buffer would otherwise be writable through the tensor).
    """
    if layout in ARRAY_LAYOUTS:
        if not volume.flags.writeable or any(step < 0 for step in volume.strides):
            volume = np.array(volume, copy=True)
        tensor = torch.from_numpy(volume)
        if not is_batched(layout):
            tensor = tensor.unsqueeze(0)
        return tensor.permute(_FROM_ARRAY_AXES)
    return volume if is_batched(layout) else volume.unsqueeze(0)


def from_working(result: torch.Tensor, layout: str) -> torch.Tensor | np.ndarray:
    """Turn an NCDHW result back into ``layout`` and the container that layout belongs to."""
    if layout in ARRAY_LAYOUTS:
        result = result.permute(_TO_ARRAY_AXES)
        return (result if is_batched(layout) else result[0]).numpy()
    return result if is_batched(layout) else result[0]


def empty_result(shape_ncdhw: tuple[int, ...], dtype: torch.dtype, layout: str) -> torch.Tensor:
    """An NCDHW tensor whose memory is contiguous in the public ``layout``.

    A NumPy caller then gets a C-contiguous array back from the final conversion at no extra cost.
    """
    if layout in ARRAY_LAYOUTS:
        n, c, d, h, w = shape_ncdhw
        return torch.empty((n, d, h, w, c), dtype=dtype).permute(_FROM_ARRAY_AXES)
    return torch.empty(shape_ncdhw, dtype=dtype)
