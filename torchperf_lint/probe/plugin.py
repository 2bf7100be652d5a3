"""The pytest plugin (entry point ``pytest11``): a ``probe`` fixture for kernel tests.

Loaded into every pytest run where torchperf-lint is installed, so it imports nothing heavy: torch
is imported when a test asks for the fixture, and a test that does without torch is skipped with the
extra to install.
"""

from __future__ import annotations

import pytest


@pytest.fixture
def probe():
    """``probe(fn, *args, **kwargs)``: the :class:`~torchperf_lint.probe.ProbeReport` of one call."""
    try:
        from torchperf_lint.probe import probe as run
    except ModuleNotFoundError as missing:
        pytest.skip(str(missing))
    return run


def pytest_assertrepr_compare(op: str, left: object, right: object) -> list[str] | None:
    """``assert report == expected`` on two reports explains itself with their diff."""
    if op != "==" or type(left).__name__ != "ProbeReport" or type(right).__name__ != "ProbeReport":
        return None
    from torchperf_lint.probe import diff

    return ["the probed calls differ:", *diff(right, left).lines]
