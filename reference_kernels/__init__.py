"""Reference eager CPU Torch kernels: 3D affine warp and remap over CDHW/NCDHW tensors and DHWC/NDHWC arrays.

The canonical compliant example for torchperf-lint's rules. The kernels need the ``kernels`` extra
(torch, numpy); they are imported on first use so the ``handoff`` renderer works without torch.
"""

from __future__ import annotations

__all__ = ["remap3d", "warp_affine3d"]


#: How to install the extra: torchperf-lint is installed from a checkout, not from a package index.
INSTALL_HINT = (
    'install the CPU build of torch first, then `pip install ".[kernels]"` in a checkout of torchperf-lint'
)
#: Third-party modules the kernels import, all installed by the ``kernels`` extra.
_EXTRA_MODULES = frozenset({"numpy", "scipy", "torch"})


def __getattr__(name: str):
    if name in __all__:
        try:
            from . import api
        except ModuleNotFoundError as error:
            if (error.name or "").split(".")[0] not in _EXTRA_MODULES:
                raise
            message = f"{__name__}.{name} needs {error.name}, which the `kernels` extra installs: {INSTALL_HINT}"
            raise ModuleNotFoundError(message, name=error.name) from None
        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public kernels and the module's own dunder attributes, not its helpers or submodules."""
    return sorted({*__all__, *(name for name in globals() if name.startswith("__") and name.endswith("__"))})
