"""What is written: in-place writes, kept and returned values, contiguous reads, unknown callees."""

from __future__ import annotations

import libcst as cst
from facts import probe

from torchperf_lint.toolkit import types, writes
from torchperf_lint.toolkit.traversal import in_source_order


def facts_of(source: str) -> writes.Writes:
    """The writes facts of the only function in ``source``."""
    (_, found), *_ = probe(source, cst.FunctionDef, lambda ctx, node: writes.of(ctx, node.body))
    return found


def test_in_place_writes_through_subscripts_attributes_methods_and_keywords():
    found = facts_of(
        "import torch\ndef f(a, b, c, d, e, g, h, k):\n    a[0] = 1\n    b[..., 2:] -= 1\n    c += 1\n"
        "    d._valid &= keep\n    e._data.masked_fill_(m, 0)\n    g[1:].zero_()\n"
        "    convert(h, inplace=True)\n    torch.add(x, y, out=k)\n    ok(a, inplace=False)\n"
    )
    assert found.written == {"a", "b", "c", "d", "e", "g", "h", "k"}


def test_kept_returned_and_viewed_names():
    found = facts_of(
        "import torch\ndef f(self, a, b, c, d, e, v, w):\n    items.append(a)\n    self.x = b\n"
        "    self.register_buffer('m', c)\n    g = v.view(-1)\n    torch.view_as_complex(w)\n"
        "    return d.unsqueeze(0), tuple(zip(e))\n"
    )
    assert found.kept == {"a", "b", "c"}
    assert found.returned == {"d", "e"}
    assert found.viewed == {"v", "w"}
    assert found.mutated == {"items", "self"}


def test_values_handed_to_unknown_functions_may_be_written():
    found = facts_of(
        "import torch\nimport torch.nn.functional as F\ndef f(a, b, c, d):\n    helper(a)\n"
        "    super().transform(boxes=b)\n    F.pad(c, (1, 1))\n    len(d)\n    c.add(d)\n"
    )
    assert found.passed == {"a", "b"}


def test_a_nested_helper_that_writes_its_parameter_writes_the_argument():
    found = facts_of(
        "import torch\ndef f(t, u):\n    def norm_ip(img, lo):\n        img.clamp_(min=lo)\n"
        "    norm_ip(t, 0)\n    norm_ip(1, u)\n"
    )
    assert "t" in found.written and "u" not in found.written


def scoped_facts_of(source: str) -> writes.Writes:
    """The writes facts of the only function in ``source``, with the kinds its annotations give."""
    (_, found), *_ = probe(source, cst.FunctionDef, lambda ctx, node: writes.of(ctx, node.body, node))
    return found


def binding_uses(source: str, name: str, kinds=(writes.WRITTEN, writes.KEPT, writes.RETURNED, writes.PASSED)):
    """Whether the value the first ``name = ...`` of the function ``f`` binds has an event of ``kinds``."""

    def ask(ctx, node: cst.FunctionDef):
        if node.name.value != "f":
            return None
        facts = writes.of(ctx, node.body, node)
        statement = next(
            found
            for found in in_source_order(node.body)
            if isinstance(found, cst.Assign)
            and isinstance(found.targets[0].target, cst.Name)
            and found.targets[0].target.value == name
        )
        return facts.uses(name, facts.position(statement), frozenset(kinds))

    (answer,) = [answer for _, answer in probe(source, cst.FunctionDef, ask) if answer is not None]
    return answer


def test_writes_through_views_of_a_name_write_the_name():
    for write in (
        "c.diagonal().zero_()",
        "torch.diagonal(c).zero_()",
        "c.view(-1)[0] = v",
        "c.select(0, 1).mul_(v)",
        "c.narrow(0, 0, 2).unsqueeze(0).fill_(1)",
        "c.transpose(0, 1)[1:] += v",
    ):
        source = f"import torch\ndef f(x, v):\n    c = x.clone()\n    {write}\n"
        assert binding_uses(source, "c", (writes.WRITTEN,)), write


def test_aliases_views_loop_targets_and_containers_pass_their_events_on():
    source = (
        "import torch\ndef f(x, launch):\n    c = x.clone()\n    d = c.diagonal()\n    a, b = c.unbind(0)\n"
        "    for row in c:\n        row.zero_()\n"
    )
    assert binding_uses(source, "c", (writes.WRITTEN,))
    source = "import torch\ndef f(x, launch):\n    c = x.clone()\n    kw = {'k': c}\n    launch(**kw)\n"
    assert binding_uses(source, "c", (writes.PASSED,))
    source = "import torch\ndef f(x):\n    proj = x.contiguous()\n    return proj[0], proj[1]\n"
    assert binding_uses(source, "proj", (writes.RETURNED,))


def test_events_before_the_binding_or_after_a_rebinding_to_a_new_value_do_not_count():
    source = (
        "import torch\ndef f(x, idx: torch.Tensor):\n    if x.numel() == 0:\n        return x\n"
        "    x = x.clone()\n    x = x[idx]\n    x[0] = 1\n    return x.sum()\n"
    )
    assert not binding_uses(source, "x")
    source = "import torch\ndef f(x, idx):\n    c = x.clone()\n    if idx:\n        c = c + 1\n    c[0] = 1\n"
    assert binding_uses(source, "c", (writes.WRITTEN,))  # the rebinding in a branch may not run


def test_a_loop_runs_earlier_statements_again_on_the_value():
    source = (
        "import torch\ndef f(x, n):\n    for i in range(n):\n        if i:\n            out.append(c)\n"
        "        c = x.clone()\n"
    )
    assert binding_uses(source, "c", (writes.KEPT,))


def test_functions_of_the_same_file_and_closures_are_read_for_what_they_do():
    source = (
        "import torch\ndef _total(a):\n    return a.sum()\ndef _fill(a):\n    a.zero_()\n"
        "def f(x):\n    c = x.clone()\n    d = x.clone()\n    _total(c)\n    _fill(d)\n"
    )
    assert not binding_uses(source, "c")
    assert binding_uses(source, "d", (writes.WRITTEN,))
    source = "import torch\ndef f(x):\n    c = x.clone()\n    def step():\n        c.add_(1)\n    step()\n"
    assert binding_uses(source, "c", (writes.WRITTEN,))
    source = "import torch\ndef f(x):\n    c = x.clone()\n    def step():\n        return c.sum()\n    step()\n"
    assert not binding_uses(source, "c", (writes.WRITTEN,))


def test_compiler_control_flow_operators_and_softmax_inputs():
    source = "import torch\ndef f(x, cond, body):\n    s = (x.clone(), 0)\n    torch.while_loop(cond, body, s)\n"
    assert binding_uses(source, "s", (writes.PASSED,))
    source = "import torch\ndef f(x):\n    s = x.t().contiguous()\n    return s.softmax(1).sum()\n"
    assert binding_uses(source, "s", (writes.VIEWED,))


def test_dict_updates_setattr_and_added_displays_keep_their_values():
    found = facts_of(
        "import torch\ndef f(self, table, items, a, b, c, d):\n    table.update({'k': a})\n    table.update(k=b)\n"
        "    setattr(self, 'x', c)\n    items += [d]\n"
    )
    assert found.kept == {"a", "b", "c", "d"}
    assert found.mutated == {"table", "self"}
    assert "c" not in found.passed


def test_a_store_into_a_tensor_copies_the_value_in_and_keeps_nothing():
    found = scoped_facts_of(
        "import torch\ndef f(out, grid: torch.Tensor, table, a, b, c, d, e):\n    out[:, 0] = a\n"
        "    out[..., 1] = b\n    grid[0] = c\n    table[0] = d\n    table[1:] = e\n"
    )
    assert found.kept == {"d", "e"}
    assert found.written == {"out", "grid", "table"}


def test_copies_values_reads_the_index_or_the_target_s_kind():
    def answers(source: str) -> list[bool]:
        def ask(ctx, node: cst.Subscript):
            return writes.copies_values(node, lambda e: types.kind_of(ctx, e))

        return [answer for _, answer in probe(source, cst.Subscript, ask)]

    tensors = "import torch\ndef f(a, t: torch.Tensor):\n    a[:, 0] = 1\n    a[...] = 1\n    t[0] = 1\n"
    assert answers(tensors) == [True, True, True]
    assert answers("def f(a):\n    a[0] = 1\n    a[1:] = 1\n    a[0, 1] = 1\n") == [False, False, False]


def test_a_store_happens_once_its_value_is_computed():
    source = "import torch\ndef f(grid, w):\n    c = grid[..., 0]\n    grid[..., 0] = c.clone() / w\n"
    (_, (where, written)), *_ = probe(source, cst.FunctionDef, _clone_and_write)
    assert written > where


def _clone_and_write(ctx, node: cst.FunctionDef) -> tuple[int, int]:
    facts = writes.of(ctx, node.body, node)
    clone = next(n for n in in_source_order(node.body) if isinstance(n, cst.Call))
    (written,) = [where for where, kind in facts.events["grid"] if kind == writes.WRITTEN]
    return facts.calls[id(clone)], written


def test_a_function_of_the_same_file_that_keeps_or_returns_its_parameter_says_so():
    def effects(source: str) -> list[str | None]:
        def ask(ctx, node: cst.Call):
            if not (isinstance(node.func, cst.Name) and node.func.value == "g"):
                return None
            return [effect for _, effect in writes.callee_effects(ctx, node) or ()]

        return next(answer for _, answer in probe(source, cst.Call, ask) if answer is not None)

    keep = "def g(table, key, value):\n    table[key] = value\ndef f(t, k, v):\n    g(t, k, v)\n"
    assert effects(keep) == [writes.WRITTEN, None, writes.KEPT]
    same = "def g(a, b):\n    return a.reshape(-1), b.sum()\ndef f(x, y):\n    g(x, y)\n"
    assert effects(same) == [writes.RETURNED, None]
    source = (
        "import torch\ndef _flat(a):\n    return a.reshape(-1)\ndef f(x):\n    c = x.clone()\n"
        "    _flat(c).zero_()\n    d = x.clone()\n    e = _flat(d)\n    return e.sum()\n"
    )
    assert binding_uses(source, "c", (writes.WRITTEN,))
    assert not binding_uses(source, "d")


def test_bound_value_is_the_last_binding_before_the_call():
    source = "import numpy as np\ndef f(img):\n    a = img\n    a = img.astype(np.float32)\n    return g(a)\n"

    def ask(ctx, node: cst.Call):
        if isinstance(node.func, cst.Name) and node.func.value == "g":
            return cst.Module([]).code_for_node(writes.bound_value(ctx, "a", node))
        return None

    assert [answer for _, answer in probe(source, cst.Call, ask) if answer] == ["img.astype(np.float32)"]


def test_torch_classes_and_sparse_constructors_hold_what_they_are_given():
    source = "import torch\ndef f(x):\n    c = x.clone()\n    p = torch.nn.Parameter(c)\n    p.data.zero_()\n"
    assert binding_uses(source, "c", (writes.WRITTEN,))
    source = "import torch\ndef f(i, v):\n    c = i.clone()\n    s = torch.sparse_coo_tensor(c, v)\n    return s\n"
    assert binding_uses(source, "c", (writes.RETURNED,))
