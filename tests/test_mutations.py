"""Each forbidden pattern, injected into the real reference router module, is caught exactly once.

The clean module has no findings; a LibCST edit adds one pattern at a known spot, and the linter must
report exactly that rule there and nothing else.
"""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from helpers import spots

ROUTERS = Path(__file__).resolve().parents[1] / "reference_kernels" / "routers.py"
MODULE = "torchperf_lint.reference_kernels.routers"
GUESS = "if work.shape[1] == 3:\n    work = work.permute(0, 2, 1, 3, 4)\n"


class Inject(cst.CSTTransformer):
    """Prepend statements to one function's body, or add a decorator to it."""

    def __init__(self, function: str, statements: str = "", decorator: str = "") -> None:
        self.function, self.statements, self.decorator = function, statements, decorator

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        if original.name.value != self.function:
            return updated
        if self.decorator:
            decorator = cst.Decorator(cst.parse_expression(self.decorator))
            return updated.with_changes(decorators=[decorator, *updated.decorators])
        added = cst.parse_module(self.statements).body
        return updated.with_changes(body=updated.body.with_changes(body=[*added, *updated.body.body]))


def def_line(source: str, function: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if line.startswith(f"def {function}("))


def test_the_clean_router_module_has_no_findings():
    assert spots(ROUTERS.read_text(), module=MODULE) == []


@pytest.mark.parametrize(
    ("code", "function", "inject", "offset", "column"),
    [
        ("TPL001", "warp_router", {"statements": "volume.requires_grad_()\n"}, 1, 5),
        ("TPL002", "warp_router", {"decorator": "torch.compile"}, 0, 2),
        ("TPL002", "remap_router", {"statements": "torch.jit.script(_sample_volumes)\n"}, 1, 5),
        ("TPL003", "remap_router", {"statements": "volume = volume.cuda()\n"}, 1, 14),
        ("TPL003", "_sample_volumes", {"statements": "grid = grid.to('mps')\n"}, 1, 20),
        ("TPL004", "warp_router", {"statements": "if torch.is_grad_enabled():\n    return volume\n"}, 1, 8),
        ("TPL005", "warp_router", {"statements": "assert request.size[0] > 0\n"}, 1, 5),
        ("TPL005", "remap_router", {"statements": "if volume.ndim != 5:\n    raise ValueError('rank')\n"}, 2, 9),
        ("TPL006", "_sample_planes", {"statements": GUESS}, 1, 8),
        ("TPL007", "remap_router", {"statements": "torch.matmul(volume, volume)\n"}, 1, 5),
        ("TPL102", "warp_router", {"statements": "request = request.detach()\n"}, 1, 5),
    ],
)  # fmt: skip
def test_an_injected_pattern_is_reported_exactly_where_it_was_put(code, function, inject, offset, column):
    clean = ROUTERS.read_text()
    mutated = cst.parse_module(clean).visit(Inject(function, **inject)).code
    line = def_line(mutated, function) + offset
    if "decorator" in inject:
        line = def_line(mutated, function) - 1
    assert spots(mutated, module=MODULE) == [(code, line, column)]
