"""Reference eager CPU Torch kernels: 3D affine warp and remap over CDHW/NCDHW tensors and DHWC/NDHWC arrays.

The canonical compliant example for torchperf-lint's rules. Needs the ``kernels`` extra (torch, numpy).
"""

from .api import remap3d, warp_affine3d

__all__ = ["remap3d", "warp_affine3d"]
