"""The handoff report: rendered from a benchmark results JSON and a short notes file, and checked
against them and the kernel source. Needs no torch."""

from .check import CHECKS, Failure, Verification, verify
from .inputs import InputError, Inputs, load_inputs
from .render import SECTIONS, ResultsError, render_handoff

__all__ = [
    "CHECKS",
    "SECTIONS",
    "Failure",
    "InputError",
    "Inputs",
    "ResultsError",
    "Verification",
    "load_inputs",
    "render_handoff",
    "verify",
]
