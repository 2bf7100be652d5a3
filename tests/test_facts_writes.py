"""What is written: in-place writes, kept and returned values, contiguous reads, unknown callees."""

from __future__ import annotations

import libcst as cst
from facts import probe

from torchperf_lint.toolkit import writes


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
