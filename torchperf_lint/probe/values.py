"""The arrays a call takes and returns: found inside containers, described, located in memory, and
snapshotted so that a write into an input shows up however it was made."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import torch

from .report import ArrayInfo

Array = torch.Tensor | np.ndarray


def leaves(value: Any, path: str) -> Iterator[tuple[str, Array]]:
    """Every tensor and NumPy array in ``value``, through tuples, lists and dicts, with its path
    (``result``, ``result[1]``, ``kwargs['coords']``)."""
    if isinstance(value, torch.Tensor | np.ndarray):
        yield path, value
    elif isinstance(value, tuple | list):
        for index, item in enumerate(value):
            yield from leaves(item, f"{path}[{index}]")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from leaves(item, f"{path}[{key!r}]")


def describe(array: Array) -> ArrayInfo:
    """Container, dtype, shape, strides in elements, storage layout and memory order of ``array``."""
    if isinstance(array, torch.Tensor):
        strides = tuple(array.stride()) if array.layout == torch.strided else ()
        return ArrayInfo(
            container="Tensor",
            dtype=str(array.dtype).removeprefix("torch."),
            shape=tuple(array.shape),
            strides=strides,
            layout=str(array.layout).removeprefix("torch."),
            contiguous=array.layout == torch.strided and array.is_contiguous(),
            order=_order(array.shape, strides),
            device=array.device.type,
            inference=array.is_inference(),
            requires_grad=array.requires_grad,
        )
    strides = tuple(step // array.itemsize for step in array.strides)
    return ArrayInfo(
        container="ndarray",
        dtype=str(array.dtype),
        shape=tuple(array.shape),
        strides=strides,
        layout="strided",
        contiguous=bool(array.flags.c_contiguous),
        order=_order(array.shape, strides),
        device="cpu",
        inference=False,
        requires_grad=False,
    )


def _order(shape: tuple[int, ...], strides: tuple[int, ...]) -> tuple[int, ...]:
    """Axes from the outermost to the innermost in memory (larger stride first; ties keep axis order);
    axes of one element say nothing about memory and keep their place."""
    if not strides:
        return tuple(range(len(shape)))
    return tuple(sorted(range(len(shape)), key=lambda axis: (-abs(strides[axis]) if shape[axis] > 1 else 0, axis)))


def numel(array: Array) -> int:
    return array.numel() if isinstance(array, torch.Tensor) else int(array.size)


def memory_range(array: Array) -> tuple[int, int] | None:
    """The bytes ``array`` may read or write: its whole storage for a tensor, the extent of the view
    for a NumPy array; None when it has no CPU memory of its own."""
    if isinstance(array, torch.Tensor):
        if array.layout != torch.strided or array.device.type != "cpu":
            return None
        storage = array.untyped_storage()
        return storage.data_ptr(), storage.data_ptr() + storage.nbytes()
    return byte_bounds(array)


def byte_bounds(array: np.ndarray) -> tuple[int, int]:
    """The first and one-past-last byte addresses ``array`` spans, whatever its strides."""
    start = array.ctypes.data
    if array.size == 0:
        return start, start
    spans = [(size - 1) * step for size, step in zip(array.shape, array.strides, strict=True)]
    low = start + sum(span for span in spans if span < 0)
    high = start + sum(span for span in spans if span > 0)
    return low, high + array.itemsize


def snapshot(array: Array) -> bytes:
    """The values' bytes, to compare before and after the call."""
    if isinstance(array, np.ndarray):
        return array.tobytes()
    if array.layout != torch.strided or array.device.type != "cpu":
        return b""
    flat = array.detach().contiguous().reshape(-1)
    return flat.view(torch.uint8).numpy().tobytes() if flat.numel() else b""
