"""The findings cache: warm runs parse nothing, changes invalidate, bad entries are never trusted."""

from __future__ import annotations

import concurrent.futures
from pathlib import Path

import pytest

from torchperf_lint import cli, engine, runner
from torchperf_lint.cache import DIRECTORY_NAME

FILES = {
    "a.py": "import torch\ny = x.cuda()\n",
    "b.py": "import torch\n\n@torch.compile\ndef f():\n    pass\n",
    "c.py": "print('no torch here')\n",
}


@pytest.fixture
def tree(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.torchperf-lint]\n")
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def parses(monkeypatch) -> list[str]:
    """Paths the engine was asked to lint (every parse goes through it)."""
    seen: list[str] = []
    real = engine.lint_bytes

    def spy(data, file, path=None, **options):
        seen.append(path)
        return real(data, file, path, **options)

    monkeypatch.setattr(engine, "lint_bytes", spy)
    return seen


def lint(capsys, *args) -> tuple[int, str]:
    code = cli.main([".", "-q", *args])
    return code, capsys.readouterr().out


def test_a_warm_run_parses_no_file_and_reports_the_same(tree, parses, capsys):
    cold = lint(capsys)
    assert sorted(parses) == ["a.py", "b.py", "c.py"]
    parses.clear()
    assert lint(capsys) == cold
    assert parses == []
    assert (
        (tree / DIRECTORY_NAME / "CACHEDIR.TAG")
        .read_text()
        .startswith("Signature: 8a477f597d28d172789f06886806bc55")
    )
    assert (tree / DIRECTORY_NAME / ".gitignore").read_text().endswith("*\n")


def test_changed_bytes_or_settings_miss_the_cache(tree, parses, capsys):
    lint(capsys)
    parses.clear()
    (tree / "a.py").write_text("import torch\ny = x.cuda()  # changed\n")
    lint(capsys)
    assert parses == ["a.py"]
    parses.clear()
    _, out = lint(capsys, "--ignore", "TPL003")
    assert sorted(parses) == ["a.py", "b.py", "c.py"] and "TPL003" not in out


def test_corrupt_or_foreign_entries_are_ignored_and_rewritten(tree, parses, capsys):
    cold = lint(capsys)
    entries = sorted((tree / DIRECTORY_NAME / "v1").rglob("*.json"))
    assert len(entries) == 3
    entries[0].write_text("{not json")
    entries[1].write_text('{"format": 1, "findings": [["x", 1, "TPL003", "forged", 1, 1, null]]}')
    entries[2].write_text('{"format": 99, "findings": []}')
    parses.clear()
    assert lint(capsys) == cold
    assert len(parses) == 3
    parses.clear()
    assert lint(capsys) == cold and parses == []


def test_no_cache_reads_and_writes_nothing_and_clean_removes_the_folder(tree, parses, capsys):
    lint(capsys, "--no-cache")
    assert not (tree / DIRECTORY_NAME).exists()
    lint(capsys, "--cache-dir", "elsewhere")
    assert (tree / "elsewhere" / "CACHEDIR.TAG").is_file()
    lint(capsys)
    assert cli.main(["clean"]) == 0
    assert not (tree / DIRECTORY_NAME).exists()
    assert cli.main(["clean", "--cache-dir", "elsewhere"]) == 0 and not (tree / "elsewhere").exists()


def test_a_warm_run_of_a_large_batch_starts_no_worker(tmp_path, monkeypatch, capsys):
    """Hits are served in the main process; only misses would pay for a process pool."""
    (tmp_path / "pyproject.toml").write_text("[tool.torchperf-lint]\n")
    for index in range(runner.POOL_THRESHOLD + 1):
        (tmp_path / f"m{index}.py").write_text("import torch\ny = x.cuda()\n")
    monkeypatch.chdir(tmp_path)
    pools: list[int] = []
    real_pool = concurrent.futures.ProcessPoolExecutor

    def counting_pool(*args, **kwargs):
        pools.append(1)
        return real_pool(*args, **kwargs)

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", counting_pool)
    cold = lint(capsys, "--jobs", "2")
    assert cold[1].count("TPL003") == runner.POOL_THRESHOLD + 1
    assert len(pools) == 1
    assert lint(capsys, "--jobs", "2") == cold
    assert len(pools) == 1


def test_a_lone_file_outside_any_project_caches_in_the_current_project_root(tmp_path, monkeypatch, capsys):
    """As Ruff does: a file with no configuration above it uses the project around the current
    directory, and so that project's cache; with no project there either, the current directory."""
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[tool.torchperf-lint]\n")
    lone = tmp_path / "elsewhere" / "lone.py"
    lone.parent.mkdir()
    lone.write_text("import torch\ny = x.cuda()\n")
    monkeypatch.chdir(project / "sub")
    assert cli.main([str(lone), "-q"]) == 1
    assert (project / DIRECTORY_NAME / "CACHEDIR.TAG").is_file()
    assert not (project / "sub" / DIRECTORY_NAME).exists() and not (lone.parent / DIRECTORY_NAME).exists()
    bare = tmp_path / "no-project"
    bare.mkdir()
    monkeypatch.chdir(bare)
    assert cli.main([str(lone), "-q"]) == 1
    assert (bare / DIRECTORY_NAME / "CACHEDIR.TAG").is_file()
    capsys.readouterr()
