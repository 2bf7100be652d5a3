"""The optional OpenCV route: plane warps of NumPy volumes, one ``cv2.warpAffine`` per depth slice.

Used only where OpenCV 5 or newer is installed (the ``opencv`` extra); without it every call takes the
Torch routes, unchanged. OpenCV 4 is never used: its ``warpAffine`` rounds sampling positions to 1/32
of a pixel, which puts float32 results 2e-2 and uint8 results 5 grey levels away from exact bilinear
sampling; OpenCV 5 agrees with the Torch routes within 1e-5 (float32) and one grey level (uint8).

``warpAffine`` reads and writes channels-last ``(H, W, C)`` images, which is how a ``DHWC`` or
``NDHWC`` array already stores each slice, so the route needs no layout view. It uses OpenCV's own
thread pool.
"""

from __future__ import annotations

import numpy as np

from .validation import Sampling

try:
    import cv2
except ImportError:  # the optional extra is not installed
    cv2 = None

#: OpenCV's first release whose warpAffine interpolates at exact positions.
_MIN_MAJOR = 5
#: ``borderValue`` is a 4-vector, so a per-channel fill covers at most four channels.
_MAX_CHANNELS = 4
_AVAILABLE = cv2 is not None and int(cv2.__version__.split(".")[0]) >= _MIN_MAJOR

#: NumPy plane warps take this route from this many voxels per depth slice on: below it, one Python
#: call per slice costs more than the single Torch sampler call saves.
#: Evidence for 1024: opencv-planes ahead of plane-slices in plane-c3-n4-numpy, plane-u8-c3-n4-numpy-fill;
#:   plane-merged ahead of opencv in plane-c3-n16-numpy-small
OPENCV_MIN_SLICE_VOXELS = 1024


def can_warp(volume, layout: str) -> bool:
    """Whether the OpenCV route takes this plane warp: one OpenCV supports, with slices large enough
    to pay for a call each."""
    if not _supports(volume, layout):
        return False
    height, width = volume.shape[-3:-1]
    return height * width >= OPENCV_MIN_SLICE_VOXELS


def _supports(volume, layout: str) -> bool:
    """What OpenCV can do at all (not a measured choice): OpenCV 5, a channels-last NumPy volume,
    at most four channels."""
    channels_last = isinstance(volume, np.ndarray) and layout in ("DHWC", "NDHWC")
    return _AVAILABLE and channels_last and volume.shape[-1] <= _MAX_CHANNELS


def warp(
    volume: np.ndarray, layout: str, inverse: np.ndarray, size: tuple[int, int, int], sampling: Sampling
) -> np.ndarray:
    """Warp every ``(H, W, C)`` slice by the plane map ``inverse`` (output pixel -> input pixel)."""
    batch = volume if layout == "NDHWC" else volume[None]
    out = np.empty((batch.shape[0], *size, batch.shape[-1]), dtype=volume.dtype)
    border = cv2.BORDER_CONSTANT if sampling.border_mode == "constant" else cv2.BORDER_REPLICATE
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    width_height = (size[2], size[1])
    for item, volume_slices in enumerate(batch):
        for depth, image in enumerate(volume_slices):
            cv2.warpAffine(image, inverse, width_height, out[item, depth], flags, border, sampling.fill)
    return out if layout == "NDHWC" else out[0]
