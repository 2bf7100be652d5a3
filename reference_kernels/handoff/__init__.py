"""The handoff report: rendered from a benchmark results JSON and a short notes file. Needs no torch."""

from .check import missing_sections
from .render import SECTIONS, ResultsError, render_handoff

__all__ = ["SECTIONS", "ResultsError", "missing_sections", "render_handoff"]
