"""Other libraries that implement the same contract, timed beside the public call with ``--peers``.

A peer is prepared once per region, outside the timed calls: its arguments are translated into its
own API there, so only its own work is timed. albucore 0.3.1 is the peer: the project the contract
comes from, with the same forward voxel-centre (x, y, z) matrix and (D, H, W) size conventions and the
same containers and layouts (chosen there by container and rank).

Its ``remap3d`` takes a grid already normalised for ``grid_sample`` (``align_corners=False``) rather
than voxel coordinates, so its callers must normalise first. The ``albucore`` peer does that inside
the timed call, as one float32 multiply-add over whole rows (the fastest way measured for the public
call's own normalisation), so both sides do the same job; ``albucore-grid-prebuilt`` times albucore's
call alone on a grid built before timing.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

#: A prepared call: runs the peer once on the region's arguments and returns its result.
Prepared = Callable[[], object]


def albucore(call: dict) -> Prepared:
    """albucore's ``warp_affine3d``, or its ``remap3d`` after the normalisation its callers must do;
    ImportError when albucore is not installed."""
    warp, remap, options = _albucore(call)
    volume = call["volume"]
    if call["function"] == "warp_affine3d":
        matrix, size = np.asarray(call["matrix"], dtype=np.float64), tuple(call["size"])
        return lambda: warp(volume, matrix, size, **options)
    coords, in_dhw = call["coords"], _input_dhw(volume, call["layout"])
    return lambda: remap(volume, normalised_grid(coords, in_dhw), **options)


def albucore_grid_prebuilt(call: dict) -> Prepared:
    """albucore's ``remap3d`` alone, on a grid normalised before timing."""
    _, remap, options = _albucore(call)
    volume = call["volume"]
    grid = normalised_grid(call["coords"], _input_dhw(volume, call["layout"]))
    return lambda: remap(volume, grid, **options)


def _albucore(call: dict) -> tuple[Callable, Callable, dict]:
    import cv2
    from albucore.affine3d import warp_affine3d
    from albucore.remap3d import remap3d

    options = {
        "interpolation": cv2.INTER_LINEAR if call["interpolation"] == "linear" else cv2.INTER_NEAREST,
        "border_mode": cv2.BORDER_CONSTANT if call["border_mode"] == "constant" else cv2.BORDER_REPLICATE,
        "border_value": call["border_value"],
    }
    return warp_affine3d, remap3d, options


def normalised_grid(coords: np.ndarray, in_dhw: tuple[int, int, int]) -> torch.Tensor:
    """Input (x, y, z) voxel coordinates as ``grid_sample`` coordinates, ``(2v + 1) / size - 1``: one
    float32 multiply-add over rows of ``W * 3`` values, the per-axis scale and offset tiled along a row."""
    width = coords.shape[2]
    sizes = np.asarray(in_dhw[::-1], dtype=np.float64)
    scale = torch.from_numpy(np.tile(2.0 / sizes, width).astype(np.float32))
    offset = torch.from_numpy(np.tile(1.0 / sizes - 1.0, width).astype(np.float32))
    rows = torch.from_numpy(np.ascontiguousarray(coords)).view(-1, width * 3)
    return torch.addcmul(offset, rows, scale).view(coords.shape)


def _input_dhw(volume, layout: str) -> tuple[int, int, int]:
    shape = tuple(volume.shape)
    return {"CDHW": shape[1:4], "NCDHW": shape[2:5], "DHWC": shape[0:3], "NDHWC": shape[1:4]}[layout]


PEERS: dict[str, Callable[[dict], Prepared]] = {
    "albucore": albucore,
    "albucore-grid-prebuilt": albucore_grid_prebuilt,
}


def peer_candidates(requested: tuple[str, ...], function: str) -> list[str]:
    """The peer candidates of a region: each requested library, plus its grid-prebuilt remap."""
    names = []
    for name in requested:
        names.append(name)
        if function == "remap3d" and f"{name}-grid-prebuilt" in PEERS:
            names.append(f"{name}-grid-prebuilt")
    return names
