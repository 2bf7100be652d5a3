"""Run a probe during the engine's own traversal, so toolkit facts see the ancestors rules see."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from torchperf_lint.context import FileContext
from torchperf_lint.dispatch import Dispatcher
from torchperf_lint.rule import Rule
from torchperf_lint.toolkit import traversal
from torchperf_lint.toolkit.scopes import ScopeBuilder

Probe = Callable[[FileContext, cst.CSTNode], object]


def probe(source: str, node_type: type[cst.CSTNode], ask: Probe) -> list[tuple[int, object]]:
    """``(line, ask(ctx, node))`` for every node of ``node_type``, visited in source order."""
    module = cst.parse_module(source)
    builder = ScopeBuilder(module)
    traversal.visit(module, builder)
    ctx = FileContext(path="probe.py", module_name="probe", text=source, module=module, scopes=builder.scopes)
    answers: list[tuple[int, object]] = []

    def visit(self: Rule, node: cst.CSTNode) -> None:
        answers.append((ctx.position(node).start.line, ask(ctx, node)))

    probe_rule = type("ProbeRule", (Rule,), {f"visit_{node_type.__name__}": visit})
    Dispatcher(ctx, [probe_rule(ctx)]).run(module)
    return answers
