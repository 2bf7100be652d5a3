"""The fast traversal and positions agree with LibCST's own visitor and PositionProvider."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from torchperf_lint.toolkit import traversal

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(
    p
    for folder in ("torchperf_lint", "rules", "reference_kernels", "tests")
    for p in (ROOT / folder).rglob("*.py")
)
TRICKY = (
    "x = (  # comment\n    a\n    + b\r\n)\r\n",
    "@dec\n\nclass C(  base ,):\n    '''doc\n    string'''\n"
    "    def f(self, *, k=1, **kw): return [i for i in k if i]\n",
    "if a:\n    pass\nelif b:  \\\n    pass\nelse:\n\tpass\n",
    "s = f'{x!r:>{width}}' 'tail'\nlambda q, /, r: (yield)\n",
)


class Collector(cst.CSTVisitor):
    def __init__(self) -> None:
        self.seen: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.seen.append(node)
        return True


@pytest.mark.parametrize("source", [p.read_text() for p in SOURCES[::7]] + list(TRICKY))
def test_positions_match_libcst(source):
    module = cst.parse_module(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    spans = traversal.positions(module)
    for node, where in expected.items():
        assert spans[node] == ((where.start.line, where.start.column), (where.end.line, where.end.column))


@pytest.mark.parametrize("source", [p.read_text() for p in SOURCES[::11]] + list(TRICKY))
def test_walker_visits_every_non_layout_node_libcst_does(source):
    module = cst.parse_module(source)
    libcst_order = Collector()
    module.visit(libcst_order)
    ours = Collector()
    traversal.visit(module, ours)
    expected = [n for n in libcst_order.seen if not isinstance(n, traversal.LAYOUT)]
    assert {id(n) for n in ours.seen} == {id(n) for n in expected}
    assert len(ours.seen) == len(expected)
