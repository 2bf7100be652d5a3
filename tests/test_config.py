"""Configuration errors: every key and selector is checked when the file is read, named as the file spells it."""

from __future__ import annotations

import subprocess
import sys

import pytest

KNOWN = (
    "exclude, extend-exclude, extend-per-file-ignores, extend-select, ignore, infer-kernel-map, "
    "max-file-size, namespace-packages, not-prevalidated, not-primitives, per-file-ignores, prevalidated, "
    "primitives, respect-gitignore, select, target-version"
)


def run(*args: str, cwd) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "torchperf_lint", "--no-cache", *args], capture_output=True, text=True, cwd=cwd
    )


@pytest.fixture
def project(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("import torch\ny = x.cuda()\n")
    return tmp_path


@pytest.mark.parametrize("key", ["per-file-ignores", "extend-per-file-ignores"])
@pytest.mark.parametrize("glob", ["nomatch/*", "*"])
def test_a_per_file_ignores_selector_is_checked_whether_or_not_its_glob_matches(project, key, glob):
    (project / "b.toml").write_text(f'[tool.torchperf-lint]\n{key} = {{"{glob}" = ["TPL003", "TPL77"]}}\n')
    result = run("--config", "b.toml", "src", cwd=project)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f'torchperf-lint: error: unknown rule selector `TPL77` in b.toml: `tool.torchperf-lint.{key}."{glob}"`\n'
    )


def test_a_per_file_ignores_selector_in_the_nearest_pyproject_is_checked_too(project):
    (project / "pyproject.toml").write_text('[tool.torchperf-lint.per-file-ignores]\ntests = ["TPL1", "XYZ"]\n')
    result = run("src", cwd=project)
    assert (result.returncode, result.stdout) == (2, "")
    where = project.resolve() / "pyproject.toml"
    assert result.stderr == (
        f"torchperf-lint: error: unknown rule selector `XYZ` in {where}: "
        "`tool.torchperf-lint.per-file-ignores.tests`\n"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("bogus = 1\n", f"alt.toml: unknown key `bogus` (known: {KNOWN})"),
        ('select = "TPL003"\n', "alt.toml: `select` must be a list of strings"),
        ("per-file-ignores = []\n", "alt.toml: `per-file-ignores` must map globs to lists of codes"),
        ('respect-gitignore = "yes"\n', "alt.toml: `respect-gitignore` must be true or false"),
        ('ignore = ["TPL7"]\n', "unknown rule selector `TPL7` in alt.toml: `ignore`"),
        (
            'per-file-ignores = {"*.py" = ["TPL7"]}\n',
            'unknown rule selector `TPL7` in alt.toml: `per-file-ignores."*.py"`',
        ),
    ],
    ids=["unknown", "list", "table", "bool", "selector", "per-file"],
)
def test_a_bare_config_file_names_the_key_as_the_file_spells_it(project, text, message):
    (project / "alt.toml").write_text(text)
    result = run("--config", "alt.toml", "src", cwd=project)
    assert (result.returncode, result.stdout, result.stderr) == (2, "", f"torchperf-lint: error: {message}\n")


def test_a_config_file_with_the_table_names_the_key_under_the_table(project):
    (project / "alt.toml").write_text("[tool.torchperf-lint]\nbogus = 1\n")
    result = run("--config", "alt.toml", "src", cwd=project)
    assert (
        result.stderr
        == f"torchperf-lint: error: alt.toml: unknown key `tool.torchperf-lint.bogus` (known: {KNOWN})\n"
    )


def test_an_inline_config_overrides_one_key_of_the_file_that_applies(project):
    (project / "pyproject.toml").write_text('[tool.torchperf-lint]\nignore = ["TPL003"]\n')
    assert run("-q", "src", cwd=project).stdout == ""
    result = run("-q", "src", "--config", "ignore = []", cwd=project)
    assert (
        result.stdout
        == "src/a.py:2:5: TPL003 `.cuda()` moves work to a non-CPU device; routes are CPU-only by contract\n"
    )
    (project / "alt.toml").write_text('select = ["TPL0"]\nignore = ["TPL003"]\n')
    both = run("-q", "src", "--config", "alt.toml", "--config", "ignore=[]", cwd=project)
    assert both.stdout == result.stdout


@pytest.mark.parametrize(
    ("snippet", "message"),
    [
        ('select = "TPL003"', "--config: `select` must be a list of strings"),
        ("bogus = 1", f"--config: unknown key `bogus` (known: {KNOWN})"),
        ('ignore = ["TPL7"]', "unknown rule selector `TPL7` in --config: `ignore`"),
        (
            "select = [TPL003]",
            "--config 'select = [TPL003]' is neither a file nor TOML `KEY = VALUE`: "
            "Invalid value (at line 1, column 11)",
        ),
    ],
    ids=["value", "unknown", "selector", "toml"],
)
def test_an_inline_config_error_names_the_key(project, snippet, message):
    result = run("src", "--config", snippet, cwd=project)
    assert (result.returncode, result.stdout, result.stderr) == (2, "", f"torchperf-lint: error: {message}\n")


def test_two_config_files_are_refused(project):
    (project / "a.toml").write_text("")
    (project / "b.toml").write_text("")
    result = run("src", "--config", "a.toml", "--config", "b.toml", cwd=project)
    assert (result.returncode, result.stderr) == (
        2,
        "torchperf-lint: error: --config names one file at most (and any number of `KEY = VALUE` overrides)\n",
    )
