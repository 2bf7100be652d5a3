"""An independent float64 reference for the kernels, built on SciPy's ``ndimage.map_coordinates``.

Everything here works in NCDHW float64 NumPy arrays and input voxel coordinates; nothing is shared
with the package under test except the public conventions.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

ORDER = {"linear": 1, "nearest": 0}
MODE = {"constant": "grid-constant", "replicate": "nearest"}


def warp_coords(matrix, size) -> np.ndarray:
    """Input (x, y, z) voxel coordinates, shape (D, H, W, 3), sampled by each output voxel."""
    forward = np.asarray(matrix, dtype=np.float64)
    forward = np.vstack([forward[:3], [0.0, 0.0, 0.0, 1.0]])
    inverse = np.linalg.inv(forward)
    z, y, x = np.meshgrid(*(np.arange(s, dtype=np.float64) for s in size), indexing="ij")
    points = np.stack([x, y, z, np.ones_like(x)], axis=-1)
    return (points @ inverse.T)[..., :3]


def sample(volume: np.ndarray, coords: np.ndarray, interpolation: str, border_mode: str, fill) -> np.ndarray:
    """Sample an NCDHW float64 array at (x, y, z) coords; ``fill`` is one value per channel."""
    zyx = np.moveaxis(coords[..., ::-1], -1, 0)
    n, c = volume.shape[:2]
    out = np.empty((n, c, *coords.shape[:3]))
    for item in range(n):
        for channel in range(c):
            out[item, channel] = ndimage.map_coordinates(
                volume[item, channel],
                zyx,
                order=ORDER[interpolation],
                mode=MODE[border_mode],
                cval=fill[channel],
            )
    return out


def to_uint8(values: np.ndarray) -> np.ndarray:
    """Round half up and saturate, as the contract says."""
    return np.clip(np.floor(values + 0.5), 0, 255).astype(np.uint8)


def near_rounding_tie(coords: np.ndarray, margin: float = 1e-3) -> np.ndarray:
    """(D, H, W) mask of voxels whose nearest-neighbour source is ambiguous in float32."""
    return (np.abs(coords - np.floor(coords) - 0.5) < margin).any(axis=-1)
