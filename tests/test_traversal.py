"""The fast traversal and positions agree with LibCST's own visitor and PositionProvider."""

from __future__ import annotations

import ast
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from torchperf_lint.toolkit import positions, traversal

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
    spans = positions.positions(module)
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


class PathRecorder(cst.CSTVisitor):
    """Every visited node with its ancestors, module first, as the engine's traversal keeps them."""

    def __init__(self) -> None:
        self.stack: list[cst.CSTNode] = []
        self.paths: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.stack.append(node)
        self.paths.append((node, tuple(self.stack)))
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()


LOCAL_TRICKY = (
    *TRICKY,
    "class C:\n    # lead\n\n    @a  # c\n    # between\n    @b\n"
    "    def f(self):\n        x = 1; y = 2\n        return x\n",
    "def f():\n    if x: return 1\n    a = 1; b = (\n        2)\n\n\n    def g(): pass\n    return g\n",
    "x = 1\r\ndef f():\r\n\tif y:\r\n\t\treturn torch.compile(f)\r\n",
    "def f():\n    return 1",  # no trailing newline: the last statement cannot be generated alone
)


def located(source: str) -> tuple[dict[cst.CSTNode, positions.Span], PathRecorder, positions.Locator]:
    """The whole module's spans, every node the traversal visits with its path, and a fresh locator."""
    module = cst.parse_module(source)
    recorder = PathRecorder()
    traversal.visit(module, recorder)
    return positions.positions(module), recorder, positions.Locator(module, source, ast.parse(source))


@pytest.mark.parametrize("source", [p.read_text() for p in SOURCES[::9]] + list(LOCAL_TRICKY))
def test_statement_spans_match_whole_module_spans(source):
    expected, recorder, locator = located(source)
    for node, path in recorder.paths:
        assert locator.span(node, path) == expected[node]


class CountingParse:
    """Stands in for the lazy CPython parse a locator is given, counting its calls."""

    def __init__(self, source: str) -> None:
        self.source, self.calls = source, 0

    def __call__(self) -> ast.Module:
        self.calls += 1
        return ast.parse(self.source)


@pytest.mark.parametrize("source", [p.read_text() for p in SOURCES[::13]] + list(LOCAL_TRICKY))
def test_spans_placed_by_text_match_whole_module_spans(source):
    """Without CPython's tree, each node's span is still exactly LibCST's: a statement whose text
    starts one line of the source is placed there, anything else by the tree parsed on demand."""
    module = cst.parse_module(source)
    recorder = PathRecorder()
    traversal.visit(module, recorder)
    expected = positions.positions(module)
    for node, path in recorder.paths[:: max(1, len(recorder.paths) // 40)]:
        locator = positions.Locator(module, source, None, CountingParse(source))
        assert locator.span(node, path) == expected[node]


def unplaced(
    source: str,
) -> tuple[list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]], CountingParse, positions.Locator]:
    """The calls of ``source`` with their paths, and a locator given no tree but a counted parse."""
    module = cst.parse_module(source)
    recorder = PathRecorder()
    traversal.visit(module, recorder)
    calls = [(n, p) for n, p in recorder.paths if isinstance(n, cst.Call)]
    parse = CountingParse(source)
    return calls, parse, positions.Locator(module, source, None, parse)


def test_a_statement_whose_text_occurs_once_is_placed_without_parsing():
    source = "import torch\n\ndef f(x):\n    a = 1\n    return torch.compile(x)\n"
    calls, parse, locator = unplaced(source)
    assert locator.span(*calls[0]) == ((5, 11), (5, 27))
    assert parse.calls == 0
    assert not locator._whole_module


def test_a_statement_whose_text_repeats_is_placed_by_the_parsed_tree():
    source = "def f(x):\n    return x.cuda()\n\n\ndef g(x):\n    return x.cuda()\n"
    calls, parse, locator = unplaced(source)
    assert [locator.span(*call)[0] for call in calls] == [(2, 11), (6, 11)]
    assert parse.calls == 1
    assert not locator._whole_module


def test_a_file_with_many_findings_stops_searching_its_text_and_parses_once():
    source = "import torch\n" + "".join(f"a{i} = x.cuda()\n" for i in range(100))
    calls, parse, locator = unplaced(source)
    assert [locator.span(*call)[0] for call in calls] == [(i + 2, len(f"a{i} = ")) for i in range(100)]
    assert parse.calls == 1
    assert locator._searches == positions._TEXT_SEARCHES


def test_locator_generates_only_the_statement_it_needs():
    source = "import torch\n\nclass C:\n    def f(self):\n        a = 1\n        return torch.compile(a)\n"
    module = cst.parse_module(source)
    recorder = PathRecorder()
    traversal.visit(module, recorder)
    call = next((n, p) for n, p in recorder.paths if isinstance(n, cst.Call))
    locator = positions.Locator(module, source, ast.parse(source))
    assert locator.span(*call) == ((6, 15), (6, 31))
    spans = locator._spans
    assert module.body[0] not in spans  # the import was never generated
    assert not locator._whole_module


def test_many_findings_in_one_body_index_that_body_once(monkeypatch):
    """Placing each of N statements must not rescan the body N times (60,000 findings in one
    generated module once took minutes)."""
    source = "import torch\n" + "".join(f"a{i} = x.cuda()\n" for i in range(300))
    module = cst.parse_module(source)
    recorder = PathRecorder()
    traversal.visit(module, recorder)
    scans: list[int] = []
    real = positions._ast_indexes
    monkeypatch.setattr(positions, "_ast_indexes", lambda body: scans.append(len(body)) or real(body))
    locator = positions.Locator(module, source, ast.parse(source))
    calls = [(n, p) for n, p in recorder.paths if isinstance(n, cst.Call)]
    assert [locator.span(*call)[0] for call in calls] == [(i + 2, len(f"a{i} = ")) for i in range(300)]
    assert scans == [301]
