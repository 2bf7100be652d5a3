"""Wording rule pages share about the default per-file-ignores (kept beside the rules that cite it)."""

TEST_PATTERNS = "`tests/`, `test_*.py`, `*_test.py`, `conftest.py`"


def test_files(reason: str) -> str:
    """The sentence a rule that is off by default in test files ends its notes with; ``reason`` says
    why that rule in particular does not apply to tests."""
    return (
        f" Off by default in test files ({TEST_PATTERNS}): {reason}. Set `per-file-ignores` to replace "
        "that default or `extend-per-file-ignores` to add to it."
    )


def tests_apply(reason: str) -> str:
    """The sentence a rule that still applies to test files ends its notes with."""
    return f" Test files are not exempt: {reason}."
