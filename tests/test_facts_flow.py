"""Which statements run together: code that runs at most once per loop, and exclusive branches."""

from __future__ import annotations

import libcst as cst
from facts import probe

from torchperf_lint.toolkit.flow import excludes, runs_at_most_once
from torchperf_lint.toolkit.functions import enclosing_loops


def once_per_mark(source: str) -> list[tuple[int, object]]:
    """For every ``mark()`` call: whether each enclosing loop runs it at most once, innermost first."""

    def ask(ctx, node: cst.Call):
        if getattr(node.func, "value", None) != "mark":
            return "skip"
        return [runs_at_most_once(ctx.ancestors, loop) for loop in enclosing_loops(ctx)]

    return [(line, answer) for line, answer in probe(source, cst.Call, ask) if answer != "skip"]


def test_a_loop_body_that_always_leaves_runs_once():
    source = (
        "def f(xs):\n    for x in xs:\n        mark()\n        break\n    while True:\n        mark()\n"
        "        return 1\n    for x in xs:\n        mark()\n        continue\n"
    )
    assert once_per_mark(source) == [(3, [True]), (6, [True]), (9, [False])]


def test_a_branch_that_leaves_the_loop_runs_once():
    source = (
        "import torch\ndef f(targets):\n    for t in targets:\n        if bad(t):\n            mark()\n"
        "            torch._assert(False, 'bad box')\n        if ok(t):\n            mark()\n"
        "            raise ValueError(t)\n        if last(t):\n            mark()\n        mark()\n"
    )
    assert once_per_mark(source) == [(5, [True]), (8, [True]), (11, [False]), (12, [False])]


def test_break_in_an_inner_loop_only_leaves_that_loop():
    source = (
        "def f(xs, ys):\n    for x in xs:\n        for y in ys:\n            mark()\n            break\n"
        "        for y in ys:\n            if y:\n                mark()\n                return y\n"
    )
    assert once_per_mark(source) == [(4, [True, False]), (8, [True, True])]


def test_a_branch_that_returns_excludes_what_follows_it():
    source = (
        "def f(img, half):\n    if half:\n        mark()\n        return 1\n    mark()\n"
        "    if other:\n        mark()\n    mark()\n"
    )
    marks = probe(source, cst.Call, lambda ctx, node: tuple(ctx.ancestors))
    first, second, third, fourth = (path for _, path in marks)
    assert excludes(first, second) and not excludes(second, first)
    assert not excludes(third, fourth)


def carried_reads(source: str) -> list[tuple[int, object]]:
    """For every ``mark(expr)`` call: whether ``expr`` depends on state its innermost loop carries."""
    from torchperf_lint.toolkit.flow import loop_state

    def ask(ctx, node: cst.Call):
        if getattr(node.func, "value", None) != "mark":
            return "skip"
        (loop, *_) = enclosing_loops(ctx)
        return loop_state(ctx, loop).depends_on_carried(node.args[0].value)

    return [(line, answer) for line, answer in probe(source, cst.Call, ask) if answer != "skip"]


def test_a_loop_carries_what_its_body_reads_before_binding_it():
    source = (
        "def f(xs, roots, boundary):\n    for x in xs:\n        cdt = conv(boundary)\n        mask = cdt > 0\n"
        "        mark(mask)\n        mark(x > 0)\n        y = x * 2\n        mark(y)\n        boundary = mask\n"
        "    while edges.any():\n        mark(edges)\n        old = edges\n        edges = step(old)\n"
    )
    assert carried_reads(source) == [(5, True), (6, False), (8, False), (11, True)]


def stop_feeding_marks(source: str) -> list[tuple[int, object]]:
    """For every ``mark(name)`` call: whether ``name`` flows into a test that can end its innermost loop."""
    from torchperf_lint.toolkit.flow import loop_state

    def ask(ctx, node: cst.Call):
        if getattr(node.func, "value", None) != "mark":
            return "skip"
        (loop, *_) = enclosing_loops(ctx)
        return loop_state(ctx, loop).feeds_stop({node.args[0].value.value})

    return [(line, answer) for line, answer in probe(source, cst.Call, ask) if answer != "skip"]


def test_names_flowing_into_a_test_with_a_way_out_of_the_loop_feed_its_stop():
    source = (
        "def f(k, n):\n    begin = 0\n    while begin < n:\n        hit = g(k)\n        nxt = begin + hit\n"
        "        begin = nxt\n        other = hit * 2\n        mark(hit)\n        mark(other)\n"
        "    for i in range(n):\n        err = g(k)\n        if err < 1:\n            if k:\n"
        "                break\n        mark(err)\n        for j in range(3):\n            if j > i:\n"
        "                break\n        mark(j)\n"
        "        mark(i)\n"
    )
    assert stop_feeding_marks(source) == [(8, True), (9, False), (15, True), (19, False), (20, False)]


def test_a_branch_on_one_value_of_the_loop_counter_runs_once():
    source = (
        "def f(xs, j):\n    for i, x in enumerate(xs):\n        if i == 0:\n            mark()\n"
        "        if 2 == i and x:\n            mark()\n        if i == j:\n            mark()\n"
        "        else:\n            mark()\n    for k in range(9):\n        if not k:\n            mark()\n"
        "        if k == 1:\n            mark()\n        k = k + 1\n"
        "    for x in xs:\n        if x == 0:\n            mark()\n"
    )
    assert once_per_mark(source) == [
        (4, [True]),
        (6, [True]),
        (8, [True]),
        (10, [False]),
        (13, [False]),
        (15, [False]),
        (19, [False]),
    ]


def test_a_with_try_or_match_every_way_through_which_leaves_runs_once():
    source = (
        "def f(xs, lock, k):\n    for x in xs:\n        mark()\n        with lock:\n            return x\n"
        "    for x in xs:\n        mark()\n        try:\n            y = g(x)\n        except ValueError:\n"
        "            raise\n        else:\n            return y\n"
        "    for x in xs:\n        mark()\n        try:\n            y = g(x)\n        except ValueError:\n"
        "            continue\n        return y\n"
        "    for x in xs:\n        mark()\n        try:\n            g(x)\n        finally:\n            break\n"
        "    for x in xs:\n        mark()\n        match k:\n            case 1:\n                return x\n"
        "            case _:\n                break\n"
        "    for x in xs:\n        mark()\n        match k:\n            case 1:\n                return x\n"
        "    for x in xs:\n        mark()\n        try:\n            return g(x)\n        except ValueError:\n"
        "            pass\n"
    )
    assert once_per_mark(source) == [
        (3, [True]),
        (7, [True]),
        (15, [False]),
        (22, [True]),
        (28, [True]),
        (35, [False]),
        (40, [False]),
    ]


def test_a_continue_after_the_node_takes_the_loop_round_again():
    source = (
        "def f(xs):\n    for x in xs:\n        if skip(x):\n            continue\n        mark()\n"
        "        return x\n"
        "    for x in xs:\n        if ok(x):\n            mark()\n            if again(x):\n"
        "                continue\n"
        "            return x\n    for x in xs:\n        mark()\n        for y in x:\n            continue\n"
        "        return x\n"
    )
    assert once_per_mark(source) == [(5, [True]), (9, [False]), (14, [True])]
