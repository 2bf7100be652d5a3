"""Wording rule pages share about the default per-file-ignores (kept beside the rules that cite it)."""

TEST_FILES = (
    " Test files (`tests/`, `test_*.py`, `*_test.py`, `conftest.py`) are exempt by default: tests "
    "measure nothing, and they legitimately call `.backward()`, guard on sizes and copy inputs to "
    "check they are untouched. Set `per-file-ignores` to replace that default or "
    "`extend-per-file-ignores` to add to it."
)
