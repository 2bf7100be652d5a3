"""``# torchperf: prevalidated`` counts on the ``def`` line, wherever the function sits and however
its signature is laid out."""

from __future__ import annotations

from helpers import spots

MULTI_LINE = "@decorate\ndef _r(  # torchperf: prevalidated\n    x,\n):\n    assert x\n"
METHOD = (
    "class C:\n    @staticmethod\n    def _r(\n        x,\n    ):  # torchperf: prevalidated\n        assert x\n"
)
NESTED = "if fast:\n    def _r(\n        x,  # torchperf: prevalidated\n    ):\n        assert x\n"


def test_the_pragma_on_the_def_line_of_a_multi_line_signature_marks_the_function():
    assert spots(MULTI_LINE, "TPL005") == [("TPL005", 5, 5)]


def test_the_pragma_where_the_header_ends_marks_a_method():
    assert spots(METHOD, "TPL005") == [("TPL005", 6, 9)]


def test_the_pragma_elsewhere_in_the_signature_or_on_a_decorator_does_not():
    assert spots(NESTED, "TPL005") == []
    assert spots("@decorate  # torchperf: prevalidated\ndef _r(x):\n    assert x\n", "TPL005") == []


def test_a_function_nested_in_an_if_is_found_through_positions():
    source = "if fast:\n    def _r(  # torchperf: prevalidated\n        x,\n    ):\n        assert x\n"
    assert spots(source, "TPL005") == [("TPL005", 5, 9)]
