"""Switches for the optional OpenCV route, so every test of it runs both with and without OpenCV."""

from __future__ import annotations

import pytest


@pytest.fixture
def without_opencv(monkeypatch):
    """The kernels as they behave where OpenCV 5 is not installed."""
    from torchperf_lint.reference_kernels import opencv_planes

    monkeypatch.setattr(opencv_planes, "_AVAILABLE", False)


@pytest.fixture(params=["with-opencv", "without-opencv"])
def opencv(request, monkeypatch) -> bool:
    """Each NumPy plane warp twice: through OpenCV at any slice size (skipped where OpenCV 5 is not
    installed), and through the Torch routes. Returns whether the OpenCV route is on."""
    from torchperf_lint.reference_kernels import opencv_planes

    if request.param == "without-opencv":
        monkeypatch.setattr(opencv_planes, "_AVAILABLE", False)
        return False
    if not opencv_planes._AVAILABLE:
        pytest.skip("OpenCV 5 or newer is not installed")
    monkeypatch.setattr(opencv_planes, "OPENCV_MIN_SLICE_VOXELS", 1)
    return True
