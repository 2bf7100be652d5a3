"""The installed console script on real files: findings, exit codes, config errors."""

import subprocess
import sys
from pathlib import Path

import pytest

from torchperf_lint import cli
from torchperf_lint.commands import check

EXAMPLES = Path(__file__).parent.parent / "examples" / "violations"


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "torchperf_lint", *args], capture_output=True, text=True, cwd=cwd)


def test_mixed_directory_reports_every_finding_and_carries_on():
    result = run(str(EXAMPLES), "-q")
    assert result.returncode == 1
    found = [line.split(" ")[0:2] for line in result.stdout.splitlines()]
    names = [(Path(p.rsplit(":", 3)[0]).name, *p.rsplit(":", 3)[1:3], code) for p, code in found]
    assert names == [
        ("broken.py", "2", "12", "TPL900"),
        ("latin1.py", "4", "20", "TPL001"),
        ("not_utf8.py", "1", "1", "TPL900"),
        ("router.py", "5", "2", "TPL002"),
        ("router.py", "7", "26", "TPL003"),
        ("router.py", "11", "5", "TPL005"),
        ("router.py", "12", "8", "TPL006"),
    ]


def test_invalid_config_value_exits_2_naming_key_and_file(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.torchperf-lint]\nselect = "TPL001"\n')
    (tmp_path / "a.py").write_text("import torch\n")
    result = run("a.py", cwd=tmp_path)
    assert result.returncode == 2
    assert "tool.torchperf-lint.select" in result.stderr and "pyproject.toml" in result.stderr
    assert "Traceback" not in result.stderr


def test_unknown_selector_is_a_usage_error(tmp_path):
    result = run(str(EXAMPLES), "--select", "TPL7")
    assert result.returncode == 2 and "TPL7" in result.stderr


def test_noqa_suppresses_and_unused_noqa_is_reported(tmp_path):
    source = "import torch\ny = x.cuda()  # noqa: TPL003\nz = 1  # noqa: TPL001\n"
    (tmp_path / "a.py").write_text(source)
    result = run("a.py", "-q", cwd=tmp_path)
    assert result.stdout == "a.py:3:8: TPL901 Unused `noqa` directive (unused: `TPL001`)\n"


@pytest.fixture
def crashing_check(monkeypatch):
    def crash(args):
        raise RuntimeError("the engine broke")

    monkeypatch.setattr(check, "run", crash)


def test_an_internal_error_exits_2_with_one_line_and_no_traceback(crashing_check, capsys):
    assert cli.main(["check", "x.py"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "torchperf-lint: error: internal error (RuntimeError: the engine broke); "
        "run with --verbose for the traceback and please report it\n"
    )


@pytest.mark.parametrize("flag", ["--verbose", "-v"])
def test_verbose_shows_the_traceback_of_an_internal_error(crashing_check, capsys, flag):
    assert cli.main(["check", flag, "x.py"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):")
    assert "RuntimeError: the engine broke" in err
    assert err.endswith("torchperf-lint: error: internal error (RuntimeError: the engine broke)\n")


def test_a_bare_command_shows_the_help():
    result = run()
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("usage: torchperf-lint [-h]")
    assert "Lint eager CPU PyTorch code against its performance contract." in result.stderr
    assert "{check,rule,rules,skill,handoff,clean}" in result.stderr
