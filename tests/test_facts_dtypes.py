"""The dtype a value is known to have from what its code spells, and arrays ``.astype`` made."""

from __future__ import annotations

import libcst as cst
import pytest
from facts import probe

from torchperf_lint.toolkit import dtypes


def read(source: str, ask) -> list:
    """``ask(ctx, call, argument)`` for each call to ``g`` in ``source``, in source order."""

    def visit(ctx, node: cst.Call):
        if isinstance(node.func, cst.Name) and node.func.value == "g":
            return ask(ctx, node, node.args[0].value)
        return _OTHER

    return [answer for _, answer in probe(source, cst.Call, visit) if answer is not _OTHER]


_OTHER = object()


def known_dtype(ctx, call, argument):
    return dtypes.dtype_of(ctx, argument, call)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("a.astype(np.float32)", "float32"),
        ("a.astype('f4').reshape(-1)", "float32"),
        ("a.astype(dtype=np.uint8).T", None),
        ("a.astype(float)", "float64"),
        ("np.zeros(3)", "float64"),
        ("np.zeros(3, dtype=np.int16)", "int16"),
        ("np.asarray(a, dtype='uint8')", "uint8"),
        ("np.load(p)", None),
        ("torch.zeros(3)", "float32"),
        ("torch.ones(3, dtype=torch.double)", "float64"),
        ("t.float()", "float32"),
        ("t.to(torch.half)", "float16"),
        ("t.to(device)", None),
        ("t.long().view(-1)", "int64"),
        ("a", None),
    ],
)
def test_dtype_of_what_the_code_spells(expression, expected):
    source = f"import numpy as np\nimport torch\ndef f(a, t, p, device):\n    g({expression})\n"
    assert read(source, known_dtype) == [expected]


def test_a_name_is_followed_to_the_value_it_was_last_bound_to():
    source = (
        "import numpy as np\ndef f(img):\n    g(img)\n    x = img.astype(np.float32)\n    y = x\n    g(y)\n"
        "    x = img\n    g(x)\n"
    )
    assert read(source, known_dtype) == [None, "float32", None]


@pytest.mark.parametrize(
    ("spelled", "expected"),
    [
        ("np.float32", "float32"),
        ("np.double", "float64"),
        ("torch.float", "float32"),
        ("torch.int", "int32"),
        ("torch.long", "int64"),
        ("torch.bfloat16", "bfloat16"),
        ("float", "float64"),
        ("'uint8'", "uint8"),
        ("'i8'", "int64"),
        ("dtype", None),
    ],
)
def test_every_spelling_of_a_dtype_has_numpy_s_name(spelled, expected):
    source = f"import numpy as np\nimport torch\ndef f(dtype):\n    g({spelled})\n"
    assert read(source, lambda ctx, call, argument: dtypes.dtype_name(ctx, argument)) == [expected]


def test_arrays_astype_made_directly_through_views_or_a_name():
    source = (
        "import numpy as np\ndef f(img, t):\n    g(img.astype(np.float32))\n    g(img.astype(int).reshape(-1))\n"
        "    a = img.astype(np.uint8)\n    g(a)\n    g(img)\n    g(t.float())\n"
    )
    found = read(source, lambda ctx, call, argument: dtypes.from_astype(ctx, argument, call))
    assert found == [True, True, True, False, False]
