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
    assert result.stdout == "a.py:3:8: TPL901 [*] Unused `noqa` directive (unused: `TPL001`)\n"


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


@pytest.mark.parametrize("flag", ["-v", "--verbose"])
def test_a_global_flag_before_the_subcommand_reaches_that_subcommand(tmp_path, flag):
    (tmp_path / "a.py").write_text("import torch\ny = x.cuda()\n")
    listed = run(flag, "rules", cwd=tmp_path)
    assert (listed.returncode, listed.stdout, listed.stderr) == (0, run("rules").stdout, "")
    checked = run(flag, "check", "-q", "--no-cache", "a.py", cwd=tmp_path)
    assert (checked.returncode, checked.stderr) == (1, "")
    assert (
        checked.stdout
        == "a.py:2:5: TPL003 `.cuda()` moves work to a non-CPU device; routes are CPU-only by contract\n"
    )
    assert run(flag, "-q", "--no-cache", "a.py", cwd=tmp_path).stdout == checked.stdout  # `check` is the default
    (tmp_path / ".torchperf_lint_cache").mkdir()
    cleaned = run(flag, "clean", cwd=tmp_path)
    assert (cleaned.returncode, cleaned.stderr) == (0, f"Removed {tmp_path.resolve() / '.torchperf_lint_cache'}\n")
    assert not (tmp_path / ".torchperf_lint_cache").exists()
    helped = run(flag, "server", "--help")
    assert helped.returncode == 0 and helped.stdout.startswith(
        "usage: torchperf-lint server [-h] [-v] [--stdio]\n"
    )


def test_verbose_before_the_default_command_shows_the_traceback(crashing_check, capsys):
    assert cli.main(["-v", "x.py"]) == 2
    assert capsys.readouterr().err.startswith("Traceback (most recent call last):")


def test_a_bare_command_shows_the_help():
    result = run()
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("usage: torchperf-lint [-h]")
    assert "Lint eager CPU PyTorch code against its performance contract." in result.stderr
    assert "{check,rule,rules,skill,handoff,server,map,probe,clean}" in result.stderr


@pytest.mark.parametrize("output_format", ["sarif", "github", "json-lines"])
def test_statistics_in_a_format_that_cannot_hold_them_is_a_usage_error(output_format):
    result = run(str(EXAMPLES), "--statistics", "--output-format", output_format, "--no-cache")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == (
        f"torchperf-lint: error: --statistics cannot be written as {output_format}; "
        "use --output-format text, concise, full or json\n"
    )


def test_statistics_rows_are_sorted_by_count_then_code(tmp_path):
    (tmp_path / "a.py").write_text(  # TPL104 comes first in the file, TPL003 twice
        "import torch\n\ntorch.set_num_threads(1)\n\n\n@torch.compile\ndef f(x):\n    return x.cuda()\n"
        "\n\ny = x.to('mps')\n"
    )
    result = run("a.py", "--statistics", "--no-cache", cwd=tmp_path)
    assert result.stdout.splitlines()[:3] == [
        "2\tTPL003\tdevice-route",
        "1\tTPL002\t[*] compilation",
        "1\tTPL104\tthread-setting",
    ]


@pytest.mark.parametrize("value", ["0", "-1", "two"])
def test_jobs_below_one_is_a_usage_error(value):
    result = run(str(EXAMPLES), "--jobs", value)
    assert result.returncode == 2 and result.stdout == ""
    assert "argument --jobs: must be a whole number of at least 1" in result.stderr


def test_repeated_selection_flags_accumulate(tmp_path):
    (tmp_path / "a.py").write_text(
        "import torch\n\n\n@torch.compile\ndef f(x):\n    torch.set_num_threads(1)\n    return x.cuda()\n"
    )

    def codes(*flags: str) -> list[str]:
        return [
            line.split(" ")[1]
            for line in run("a.py", "-q", "--no-cache", *flags, cwd=tmp_path).stdout.splitlines()
        ]

    assert codes("--select", "TPL002", "--select", "TPL003") == ["TPL002", "TPL003"]
    assert codes("--ignore", "TPL002", "--ignore", "TPL003") == ["TPL104"]
    assert codes("--select", "TPL002", "--extend-select", "TPL003", "--extend-select", "TPL104") == [
        "TPL002",
        "TPL104",
        "TPL003",
    ]


@pytest.mark.parametrize(
    "text", ['[tool.torchperf-lint]\nignore = ["TPL003"]\n', 'ignore = ["TPL003"]\n'], ids=["table", "bare"]
)
def test_config_file_may_hold_the_table_or_the_bare_keys(tmp_path, text):
    (tmp_path / "alt.toml").write_text(text)
    (tmp_path / "a.py").write_text("import torch\ny = x.cuda()\n")
    result = run("a.py", "--config", "alt.toml", "--no-cache", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, "All checks passed!\n", "")


@pytest.mark.parametrize("key", ["select", "extend-select", "ignore"])
def test_an_unknown_selector_in_config_names_the_file_and_key(tmp_path, key):
    (tmp_path / "pyproject.toml").write_text(f'[tool.torchperf-lint]\n{key} = ["TPL7"]\n')
    (tmp_path / "a.py").write_text("x = 1\n")
    result = run("a.py", cwd=tmp_path)
    assert result.returncode == 2
    where = tmp_path.resolve() / "pyproject.toml"
    assert (
        result.stderr
        == f"torchperf-lint: error: unknown rule selector `TPL7` in {where}: `tool.torchperf-lint.{key}`\n"
    )


def test_a_noqa_for_a_code_that_does_not_exist_says_unknown(tmp_path):
    source = "import torch\ny = x.cuda()  # noqa: TPL003, TPL999\nz = 1  # noqa: TPL998\n"
    (tmp_path / "a.py").write_text(source)
    result = run("a.py", "-q", "--no-cache", cwd=tmp_path)
    assert result.stdout.splitlines() == [
        "a.py:2:15: TPL901 [*] Unused `noqa` directive (unknown: `TPL999`)",
        "a.py:3:8: TPL901 [*] Unused `noqa` directive (unknown: `TPL998`)",
    ]


def test_handoff_render_reports_a_json_syntax_error_with_its_position(tmp_path):
    (tmp_path / "results.json").write_text('{\n  "schema": "torchperf-bench/1",\n  "regions": [1,]\n}\n')
    result = run("handoff", "render", "results.json", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == "torchperf-lint: error: results.json:3:17: not valid JSON: Expecting value\n"


def test_a_reader_that_stops_early_ends_the_run_quietly(tmp_path):
    many = tmp_path / "many.py"
    many.write_text("import torch\n\n\ndef f(x):\n" + "    x.cuda()\n" * 5000)
    command = [sys.executable, "-m", "torchperf_lint", "check", "--no-cache", str(many)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = process.stdout.readline()
    process.stdout.close()  # as `| head -1` does
    stderr = process.stderr.read()
    assert first.startswith(f"{many}:5:5: TPL003 ")
    assert (process.wait(), stderr) == (2, "")
