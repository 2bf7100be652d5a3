"""The progress line: only at a terminal, only after the delay, never in CI, with -q or machine formats."""

from __future__ import annotations

import io

import pytest

from torchperf_lint import cli, progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_line_appears_after_the_delay_redraws_at_most_ten_times_a_second_and_is_erased():
    stream, clock = Terminal(), Clock()
    line = progress.Progress(stream, total=5, clock=clock)
    line.update(1)
    clock.now += 1.9
    line.update(2)
    assert stream.getvalue() == ""  # a short run never shows it
    clock.now += 0.2
    line.update(3)
    clock.now += 0.05
    line.update(4)  # too soon after the last redraw
    clock.now += 0.1
    line.update(5)
    line.close()
    assert stream.getvalue() == "\r\x1b[KLinting: 3/5 files\r\x1b[KLinting: 5/5 files\r\x1b[K"


def test_a_line_never_drawn_is_not_erased():
    stream = Terminal()
    line = progress.Progress(stream, total=1, clock=Clock())
    line.update(1)
    line.close()
    assert stream.getvalue() == ""


@pytest.fixture
def tree(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[tool.torchperf-lint]\n")
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text("import torch\ny = x.cuda()\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(progress, "_REDRAW", 0.0)
    return tmp_path


def test_a_run_at_a_terminal_shows_files_done_out_of_the_total(tree, monkeypatch, capsys):
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert cli.main([".", "--no-cache"]) == 1
    assert terminal.getvalue() == "\r\x1b[KLinting: 1/2 files\r\x1b[KLinting: 2/2 files\r\x1b[K"
    assert capsys.readouterr().out.endswith(
        "Found 2 errors.\n2 hidden fixes can be enabled with the `--unsafe-fixes` option.\n"
    )


@pytest.mark.parametrize(
    "flags", [["-q"], ["--output-format", "json"], ["--output-format", "sarif"], ["--statistics"]]
)
def test_no_line_with_quiet_or_a_machine_format(tree, monkeypatch, capsys, flags):
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    cli.main([".", "--no-cache", *flags])
    assert terminal.getvalue() == ""


def test_no_line_in_ci_or_when_stderr_is_not_a_terminal(tree, monkeypatch, capsys):
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    monkeypatch.setenv("CI", "true")
    cli.main([".", "--no-cache"])
    assert terminal.getvalue() == ""
    monkeypatch.delenv("CI")
    pipe = io.StringIO()
    monkeypatch.setattr("sys.stderr", pipe)
    cli.main([".", "--no-cache"])
    assert pipe.getvalue() == ""
