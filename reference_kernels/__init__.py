"""Reference eager CPU Torch kernels: 3D affine warp and remap over CDHW/NCDHW tensors and DHWC/NDHWC arrays.

The canonical compliant example for torchperf-lint's rules. The kernels need the ``kernels`` extra
(torch, numpy); they are imported on first use so the ``handoff`` renderer works without torch.
"""

from __future__ import annotations

__all__ = ["remap3d", "warp_affine3d"]


def __getattr__(name: str):
    if name in __all__:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
