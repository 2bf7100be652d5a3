"""The handoff report: rendered from a benchmark results JSON and a short notes file. Needs no torch."""

from .render import SECTIONS, render_handoff

__all__ = ["SECTIONS", "render_handoff"]
