"""The engine's LibCST parse skips per-node checks for the parser's own output, and only for it."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from torchperf_lint.engine import _libcst_tree

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted((ROOT / "reference_kernels").rglob("*.py")) + sorted((ROOT / "rules").glob("*.py"))[:8]


@pytest.mark.parametrize("path", SOURCES[:12], ids=lambda path: path.name)
def test_the_tree_equals_a_fully_checked_parse(path):
    text = path.read_text(encoding="utf-8")
    tree = _libcst_tree(text, None)
    assert isinstance(tree, cst.Module)
    assert tree.deep_equals(cst.parse_module(text))
    assert tree.code == text


def test_no_node_is_checked_while_the_parser_builds_the_tree(monkeypatch):
    checked = []
    monkeypatch.setattr(cst.Name, "_validate", lambda node: checked.append(node.value))
    _libcst_tree("import torch\ny = torch.zeros(3)\n", None)
    assert checked == []
    cst.parse_module("y = x\n")
    assert checked == ["y", "x"]


def test_hand_built_nodes_are_checked_after_a_parse_and_after_a_failed_one():
    _libcst_tree("x = 1\n", None)
    with pytest.raises(cst.CSTValidationError):
        cst.Name("")
    assert not isinstance(_libcst_tree("def f(:\n", None), cst.Module)
    with pytest.raises(cst.CSTValidationError):
        cst.Name("")
