"""Node spans are columns of the source as written, on lines LibCST does not give back verbatim
(a form feed in the indentation) as on every other line: CPython's ``ast`` is the reference."""

from __future__ import annotations

import ast

import libcst as cst
import pytest
from helpers import lint

from torchperf_lint.toolkit.positions import positions, realign, source_positions

#: Sources whose one call LibCST and CPython must place alike; the ids say where the oddity is.
ODD_WHITESPACE = {
    "form-feed-before-a-module-statement": "import torch\n\x0cy = s.cuda()\n",
    "two-form-feeds-and-spaces": "import torch\n\x0c  \x0cy = s.cuda()\n",
    "form-feed-inside-a-block-indent": "import torch\ndef f():\n    x = 1\n  \x0c    y = s.cuda()\n",
    "form-feed-before-a-block-indent": "import torch\ndef f():\n    x = 1\n\x0c    y = s.cuda()\n",
    "form-feed-in-the-first-indent": "import torch\ndef f():\n  \x0c  y = s.cuda()\n",
    "form-feed-before-a-dedent": "import torch\ndef f():\n    x = 1\n\x0cy = s.cuda()\n",
    "form-feed-in-nested-blocks": (
        "import torch\nclass A:\n    x = 1\n\x0c    def f(self):\n        x = 1\n\x0c        y = s.cuda()\n"
    ),
    "form-feed-inside-a-line": "import torch\ny = \x0cs.cuda()\n",
    "form-feed-on-a-line-of-its-own": "import torch\n\x0c\ny = s.cuda()\n",
}


def call_of(source: str) -> ast.Call:
    return next(node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call))


@pytest.mark.parametrize("source", ODD_WHITESPACE.values(), ids=ODD_WHITESPACE.keys())
def test_spans_are_where_cpython_places_the_node(source):
    module = cst.parse_module(source)
    call = next(node for node in source_positions(module, source) if isinstance(node, cst.Call))
    expected = call_of(source)  # ASCII sources: byte offsets are code points
    assert source_positions(module, source)[call] == (
        (expected.lineno, expected.col_offset),
        (expected.end_lineno, expected.end_col_offset),
    )


@pytest.mark.parametrize("source", ODD_WHITESPACE.values(), ids=ODD_WHITESPACE.keys())
def test_findings_report_the_column_the_source_has(source):
    expected = call_of(source)
    [finding] = lint(source, "TPL003")
    assert (finding.row, finding.column) == (expected.lineno, expected.col_offset + 1)
    assert (finding.end_row, finding.end_column) == (expected.end_lineno, expected.end_col_offset + 1)


def test_a_dropped_form_feed_moves_every_later_column_of_its_line_only():
    source = "import torch\n\x0cy = s.cuda()  # c\nz = 1\n"
    module = cst.parse_module(source)
    assert module.code != source  # the premise: LibCST drops the form feed
    spans = source_positions(module, source)
    names = {node.value: span for node, span in spans.items() if isinstance(node, cst.Name)}
    assert names["y"] == ((2, 1), (2, 2))
    assert names["cuda"] == ((2, 7), (2, 11))
    assert names["z"] == ((3, 0), (3, 1))


def test_realign_leaves_verbatim_sources_and_mismatched_line_counts_alone():
    source = "y = s.cuda()\n"
    module = cst.parse_module(source)
    spans = positions(module)
    assert source_positions(module, source) == spans
    assert realign(spans, module.code, "\n" + source) is spans


def test_realign_maps_an_end_past_characters_the_source_lacks_to_the_source_line_end():
    node = cst.Name("x")
    assert realign({node: ((1, 0), (1, 3))}, "x y\n", "xy\n") == {node: ((1, 0), (1, 2))}
