"""Other libraries that implement the same contract, timed beside the public call with ``--peers``.

A peer is prepared once per region, outside the timed calls: its arguments are translated into its
own API there, so only its own work is timed. albucore 0.3.1 is the peer: the project the contract
comes from, with the same forward voxel-centre (x, y, z) matrix and (D, H, W) size conventions and the
same containers and layouts (chosen there by container and rank). Its ``remap3d`` takes a grid already
normalised for ``grid_sample`` (``align_corners=False``) rather than voxel coordinates, so that grid is
built here, before timing; the public call normalises inside the timed call.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: A prepared call: runs the peer once on the region's arguments and returns its result.
Prepared = Callable[[], object]


def albucore(call: dict) -> Prepared:
    """albucore's ``warp_affine3d`` or ``remap3d`` on the call's volume; ImportError when not installed."""
    import cv2
    from albucore.affine3d import warp_affine3d
    from albucore.remap3d import remap3d

    options = {
        "interpolation": cv2.INTER_LINEAR if call["interpolation"] == "linear" else cv2.INTER_NEAREST,
        "border_mode": cv2.BORDER_CONSTANT if call["border_mode"] == "constant" else cv2.BORDER_REPLICATE,
        "border_value": call["border_value"],
    }
    volume = call["volume"]
    if call["function"] == "warp_affine3d":
        matrix, size = np.asarray(call["matrix"], dtype=np.float64), tuple(call["size"])
        return lambda: warp_affine3d(volume, matrix, size, **options)
    grid = normalised_grid(call["coords"], _input_dhw(volume, call["layout"]))
    return lambda: remap3d(volume, grid, **options)


def normalised_grid(coords: np.ndarray, in_dhw: tuple[int, int, int]) -> np.ndarray:
    """Input (x, y, z) voxel coordinates as ``grid_sample`` coordinates: ``(2v + 1) / size - 1``."""
    sizes = np.asarray(in_dhw[::-1], dtype=np.float64)
    return ((2.0 * coords.astype(np.float64) + 1.0) / sizes - 1.0).astype(np.float32)


def _input_dhw(volume, layout: str) -> tuple[int, int, int]:
    shape = tuple(volume.shape)
    return {"CDHW": shape[1:4], "NCDHW": shape[2:5], "DHWC": shape[0:3], "NDHWC": shape[1:4]}[layout]


PEERS: dict[str, Callable[[dict], Prepared]] = {"albucore": albucore}
