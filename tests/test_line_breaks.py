"""Rows are counted at ``\\n``, ``\\r\\n`` and ``\\r`` only, so a form feed inside a file (old
sources separate sections with one) never moves a fix or a ``noqa`` to another line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from torchperf_lint.lines import line_starts, split_lines

FORM_FEED = "import torch\n\x0c\n@torch.compile\ndef f(x):\n    return x.cuda()\n"


def test_split_lines_breaks_only_at_newlines():
    text = "a\x0cb\r\nc\x0b\rd\x1c\x85\u2028e\n"
    assert split_lines(text) == ["a\x0cb", "c\x0b", "d\x1c\x85\u2028e"]
    assert split_lines(text, keepends=True) == ["a\x0cb\r\n", "c\x0b\r", "d\x1c\x85\u2028e\n"]
    assert split_lines("no end") == ["no end"]
    assert split_lines("") == []


def test_line_starts_count_a_final_empty_line_as_an_editor_does():
    assert line_starts("a\x0c\nbc\r\nd") == [0, 3, 7]
    assert line_starts("a\n") == [0, 2]
    assert line_starts("") == [0]


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "torchperf_lint", "--no-cache", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd)


def test_fix_after_a_form_feed_deletes_the_decorator_line_only(tmp_path):
    (tmp_path / "k.py").write_bytes(FORM_FEED.encode())
    result = run("k.py", "--fix", cwd=tmp_path)
    assert (tmp_path / "k.py").read_bytes().decode() == "import torch\n\x0c\ndef f(x):\n    return x.cuda()\n"
    assert result.stdout.splitlines()[0] == (
        "k.py:4:12: TPL003 `.cuda()` moves work to a non-CPU device; routes are CPU-only by contract"
    )


def test_add_noqa_after_a_form_feed_annotates_the_reported_line(tmp_path):
    (tmp_path / "k.py").write_bytes(FORM_FEED.encode())
    run("k.py", "--add-noqa", cwd=tmp_path)
    assert (tmp_path / "k.py").read_bytes().decode().split("\n")[2:] == [
        "@torch.compile  # noqa: TPL002",
        "def f(x):",
        "    return x.cuda()  # noqa: TPL003",
        "",
    ]
