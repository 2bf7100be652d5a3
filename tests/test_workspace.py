"""One function turns a path into its settings: nearest project, module name, per-file ignores."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from torchperf_lint.workspace import Overrides, configuration_changed, forget, settings_for

ROUTES = "import torch\n\n\ndef _route(volume):\n    assert volume.ndim == 5\n    return volume.cuda()\n"


def cli(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "torchperf_lint", "--no-cache", "-q", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, input=stdin)


@pytest.fixture
def monorepo(tmp_path: Path) -> Path:
    """Two packages, each with its own configuration: ``pa`` marks routers prevalidated, ``pb``
    ignores TPL003. The root has no configuration at all."""
    for name in ("pa", "pb"):
        package = tmp_path / name / "src" / name
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "routes.py").write_text(ROUTES)
    (tmp_path / "pa" / "pyproject.toml").write_text('[tool.torchperf-lint]\nprevalidated = ["*.routes._*"]\n')
    (tmp_path / "pb" / "pyproject.toml").write_text('[tool.torchperf-lint]\nignore = ["TPL003"]\n')
    return tmp_path


PA_FINDINGS = [
    "pa/src/pa/routes.py:5:5: TPL005 `assert` re-validates inside caller-prevalidated `pa.routes._route` "
    "(the `prevalidated` setting names it); "
    "validate once at the public entry",
    "pa/src/pa/routes.py:6:12: TPL003 `.cuda()` moves work to a non-CPU device; routes are CPU-only by contract",
]


@pytest.mark.parametrize("order", [("pa", "pb"), ("pb", "pa")], ids=["pa-first", "pb-first"])
def test_each_package_applies_its_own_configuration_whatever_the_argument_order(monorepo, order):
    result = cli(*order, cwd=monorepo)
    assert result.stdout.splitlines() == PA_FINDINGS
    assert result.returncode == 1


def test_files_named_one_by_one_as_pre_commit_passes_them(monorepo):
    result = cli("pb/src/pb/routes.py", "pa/src/pa/routes.py", cwd=monorepo)
    assert result.stdout.splitlines() == PA_FINDINGS


def test_settings_for_a_path_names_project_module_and_enabled_codes(monorepo, monkeypatch):
    monkeypatch.chdir(monorepo)
    forget()
    pa = settings_for(Path("pa/src/pa/routes.py"))
    pb = settings_for(monorepo / "pb" / "src" / "pb" / "routes.py")
    assert pa.settings.source == (monorepo / "pa" / "pyproject.toml").resolve()
    assert (pa.module_name, pb.module_name) == ("pa.routes", "pb.routes")
    assert pa.settings.prevalidated == ("*.routes._*",)
    assert "TPL003" in pa.enabled and "TPL003" not in pb.enabled
    assert "TPL104" not in settings_for(Path("pa/benchmarks/bench_x.py")).enabled  # default per-file-ignores


def test_forget_reads_a_changed_pyproject_again(monorepo, monkeypatch):
    monkeypatch.chdir(monorepo)
    forget()
    path = Path("pb/src/pb/routes.py")
    assert "TPL003" not in settings_for(path).enabled
    (monorepo / "pb" / "pyproject.toml").write_text("[tool.torchperf-lint]\n")
    assert "TPL003" not in settings_for(path).enabled  # cached until told otherwise
    forget()
    assert "TPL003" in settings_for(path).enabled


def test_config_flag_applies_one_file_to_every_path(monorepo, tmp_path):
    alternative = tmp_path / "alt.toml"
    alternative.write_text('ignore = ["TPL005"]\n')
    result = cli("--config", str(alternative), "pa", "pb", cwd=monorepo)
    codes = [line.split(" ")[1] for line in result.stdout.splitlines()]
    assert codes == ["TPL003", "TPL003"]
    overrides = Overrides(config=alternative)
    assert settings_for(monorepo / "pb" / "src" / "pb" / "routes.py", overrides).settings.source == alternative


@pytest.fixture
def src_layout(tmp_path: Path) -> Path:
    """A ``src/`` project whose routers are prevalidated by glob, and a namespace package."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.torchperf-lint]\nprevalidated = ["pkg.routes._*", "ns.sub.routes._*"]\n'
        'namespace-packages = ["src/ns"]\n'
    )
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "__init__.py").write_text("")
    (tmp_path / "src" / "pkg" / "routes.py").write_text(ROUTES)
    (tmp_path / "src" / "ns" / "sub").mkdir(parents=True)
    (tmp_path / "src" / "ns" / "sub" / "routes.py").write_text(ROUTES)
    return tmp_path


@pytest.mark.parametrize("name", ["src/pkg/routes.py", "src/ns/sub/routes.py"], ids=["package", "namespace"])
def test_stdin_names_the_module_as_a_file_run_does(src_layout, name):
    from_file = cli(name, "--select", "TPL005", cwd=src_layout)
    from_stdin = cli("-", "--stdin-filename", name, "--select", "TPL005", cwd=src_layout, stdin=ROUTES)
    module = ".".join(Path(name).with_suffix("").parts[1:])
    expected = [
        f"{name}:5:5: TPL005 `assert` re-validates inside caller-prevalidated `{module}._route` "
        "(the `prevalidated` setting names it); "
        "validate once at the public entry"
    ]
    assert from_file.stdout.splitlines() == expected
    assert from_stdin.stdout.splitlines() == expected


def test_stdin_filename_alone_reads_stdin(src_layout):
    result = cli("--stdin-filename", "src/pkg/routes.py", "--select", "TPL005", cwd=src_layout, stdin=ROUTES)
    assert result.returncode == 1
    assert [line.split(" ")[0] for line in result.stdout.splitlines()] == ["src/pkg/routes.py:5:5:"]


def test_without_namespace_packages_a_folder_without_init_is_not_a_package(src_layout):
    (src_layout / "pyproject.toml").write_text('[tool.torchperf-lint]\nprevalidated = ["ns.sub.routes._*"]\n')
    forget()
    assert settings_for(src_layout / "src" / "ns" / "sub" / "routes.py").module_name == "routes"
    assert cli("src/ns/sub/routes.py", "--select", "TPL005", cwd=src_layout).stdout == ""


def test_cwd_stands_for_the_folder_the_linter_runs_from(monorepo, tmp_path_factory):
    """A file with no configuration above it falls back to the project around ``cwd``, as a run
    from that folder would; an editor server passes the workspace folder holding the file."""
    forget()
    stray = tmp_path_factory.mktemp("stray") / "bench_x.py"
    from_pb = settings_for(stray, cwd=monorepo / "pb")
    assert from_pb.settings.source == (monorepo / "pb" / "pyproject.toml").resolve()
    assert "TPL003" not in from_pb.enabled
    from_root = settings_for(stray, cwd=monorepo)
    assert (from_root.settings.source, from_root.settings.root) == (None, monorepo.resolve())
    assert "TPL003" in from_root.enabled
    inside = settings_for(monorepo / "pa" / "src" / "pa" / "routes.py", cwd=monorepo / "pb")
    assert inside.settings.source == (monorepo / "pa" / "pyproject.toml").resolve()  # its own project wins


def test_configuration_changed_sees_an_edit_a_new_file_and_a_removal(monorepo, monkeypatch):
    monkeypatch.chdir(monorepo)
    forget()
    routes = monorepo / "pa" / "src" / "pa" / "routes.py"
    settings_for(routes)
    assert not configuration_changed()
    (monorepo / "pa" / "pyproject.toml").write_text('[tool.torchperf-lint]\nignore = ["TPL005"]\n')
    assert configuration_changed()
    forget()
    settings_for(routes)
    (monorepo / "pa" / "src" / "pyproject.toml").write_text("[tool.torchperf-lint]\n")  # a nearer one
    assert configuration_changed()
    forget()
    assert settings_for(routes).settings.source == (monorepo / "pa" / "src" / "pyproject.toml").resolve()
    (monorepo / "pa" / "src" / "pyproject.toml").unlink()
    assert configuration_changed()


def test_a_folder_without_init_inside_a_package_is_its_subpackage(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.torchperf-lint]\n")
    (tmp_path / "pkg" / "cli").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "cli" / "train.py").write_text("")
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "run.py").write_text("")
    forget()
    assert settings_for(tmp_path / "pkg" / "cli" / "train.py").module_name == "pkg.cli.train"
    assert settings_for(tmp_path / "scripts" / "run.py").module_name == "run"
