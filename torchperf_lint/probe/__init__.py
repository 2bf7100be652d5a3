"""Evidence from the running kernel: one call under torch's own instrumentation, counted exactly.

``probe(fn, *args, **kwargs)`` runs ``fn`` once (after one uncounted warm-up call) and returns a
:class:`ProbeReport`: whether autograd recorded a graph, which outputs are inference tensors, whether
they feed a backward pass and take an in-place update, operations off the CPU, tensor values read
into Python, every new buffer with its size and the operation that made it, full-size copies and
passes, thread settings, writes into the inputs, and each output's container and layout against the
inputs'. ``diff(base, head)`` says what a change added.

It needs torch (the ``probe`` extra); the linter never imports this package. The names are imported
on first use, so the pytest plugin (:mod:`.plugin`) loads in environments without torch.
"""

from __future__ import annotations

import importlib

__all__ = [
    "Allocation",
    "ArrayInfo",
    "OpRecord",
    "ProbeDiff",
    "ProbeReport",
    "assert_kept",
    "assert_within",
    "diff",
    "probe",
    "probe_call",
]
#: Where each public name lives.
_HOMES = {
    "Allocation": "report",
    "ArrayInfo": "report",
    "OpRecord": "report",
    "ProbeReport": "report",
    "ProbeDiff": "changes",
    "diff": "changes",
    "assert_kept": "assertions",
    "assert_within": "assertions",
    "probe": "run",
    "probe_call": "run",
}
#: What to install when torch is missing.
INSTALL_HINT = (
    "the `probe` extra installs it: install the CPU build of torch first, then "
    '`pip install ".[probe]"` in a checkout of torchperf-lint'
)


def __getattr__(name: str):
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        module = importlib.import_module(f"{__name__}.{_HOMES[name]}")
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] not in ("torch", "numpy"):
            raise
        raise ModuleNotFoundError(
            f"{__name__}.{name} needs {error.name}; {INSTALL_HINT}", name=error.name
        ) from None
    return getattr(module, name)


def __dir__() -> list[str]:
    return sorted({*__all__, *(name for name in globals() if name.startswith("__") and name.endswith("__"))})
