"""Volumes in every public layout, built from one NCDHW float64 source so the reference can read it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

BATCHED = {"NCDHW": True, "NDHWC": True, "CDHW": False, "DHWC": False}


@dataclass
class Case:
    volume: object  # what the public function receives
    source: np.ndarray  # the same values as float64 NCDHW, for the reference
    layout: str


def make_case(
    layout: str, dtype: str, batch: int, channels: int, dhw, *, seed: int = 0, view: bool = False
) -> Case:
    """A random volume; ``view=True`` hands over a non-contiguous view instead of a fresh buffer."""
    rng = np.random.default_rng(seed)
    n = batch if BATCHED[layout] else 1
    if dtype == "uint8":
        source = rng.integers(0, 256, size=(n, channels, *dhw)).astype(np.float64)
    else:
        source = rng.random((n, channels, *dhw))
    np_dtype = np.uint8 if dtype == "uint8" else np.float32
    source = source.astype(np_dtype).astype(np.float64)  # the values the kernel actually receives
    if layout in ("NCDHW", "CDHW"):
        data = torch.from_numpy(_maybe_strided(source.astype(np_dtype), view, channel_axis=1))
        volume = data if BATCHED[layout] else data[0]
    else:
        data = np.moveaxis(_maybe_strided(source.astype(np_dtype), view, channel_axis=1), 1, -1)
        volume = data if BATCHED[layout] else data[0]
    return Case(volume, source, layout)


def _maybe_strided(array: np.ndarray, view: bool, channel_axis: int) -> np.ndarray:
    """The same values, stored with every other W column of a wider buffer when ``view`` is set."""
    if not view:
        return np.ascontiguousarray(array)
    wide = np.zeros((*array.shape[:-1], array.shape[-1] * 2), dtype=array.dtype)
    wide[..., ::2] = array
    return wide[..., ::2]


def as_ncdhw(result, layout: str) -> np.ndarray:
    """A public result back as float64 NCDHW, for comparison."""
    array = (
        result.numpy()
        if isinstance(result, torch.Tensor)
        else np.moveaxis(result, -1, 1 if BATCHED[layout] else 0)
    )
    array = np.asarray(array, dtype=np.float64)
    return array if BATCHED[layout] else array[None]
