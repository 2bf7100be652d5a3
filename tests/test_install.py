"""The built wheel installs the documented import names, and nothing generic, into a fresh venv."""

from __future__ import annotations

import re
import site
import subprocess
import sys
import venv
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROBE = """
import pathlib, sys
import torchperf_lint.rules, torchperf_lint.reference_kernels as rk
from torchperf_lint.reference_kernels import warp_affine3d
from torchperf_lint.registry import all_rules
print(pathlib.Path(rk.__file__).resolve().is_relative_to(pathlib.Path(sys.prefix).resolve()))
print(len(all_rules()) > 0)
try:
    import torch
except ImportError:
    print("no torch")
else:
    print(tuple(warp_affine3d(torch.zeros(1, 2, 3, 4), [[1, 0, 0, 0.5], [0, 1, 0, 0], [0, 0, 1, 0]], (2, 3, 4),
                              layout="CDHW").shape))
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(ROOT),
        ],
        check=True,
    )
    return next(out.glob("torchperf_lint-*.whl"))


def test_wheel_maps_folders_into_the_torchperf_lint_namespace(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert tops == {"torchperf_lint"}
    assert "torchperf_lint/reference_kernels/handoff/templates/handoff.md.j2" in names
    assert "torchperf_lint/rules/compilation.py" in names


def checked(*command: str | Path, cwd: Path) -> str:
    """Run ``command``; on failure the assertion shows what it printed to stderr."""
    result = subprocess.run([str(part) for part in command], capture_output=True, text=True, cwd=cwd)
    assert result.returncode == 0, f"{command[0]} exited {result.returncode}:\n{result.stderr}"
    return result.stdout


def fresh_venv(folder: Path) -> Path:
    """A venv that sees the running environment's packages (torch, LibCST, pip...) but not its
    ``torchperf_lint``: ``system_site_packages`` would give the base interpreter's site-packages, not
    this venv's, so the test's own site-packages are added by a ``.pth`` file, which lists folders
    without running the editable install's path hooks in them."""
    venv.EnvBuilder(with_pip=False).create(folder)
    python = folder / "bin" / "python"
    child_site = checked(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))", cwd=folder)
    Path(child_site.strip(), "parent.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    return python


def test_wheel_in_a_fresh_venv_imports_and_runs(wheel, tmp_path):
    python = fresh_venv(tmp_path / "venv")
    checked(python, "-m", "pip", "install", "--no-deps", "--no-index", "-q", wheel, cwd=tmp_path)
    lines = checked(python, "-c", PROBE, cwd=tmp_path).split("\n")
    assert lines[:3] == ["True", "True", "(1, 2, 3, 4)"]
    (tmp_path / "kernel.py").write_text("import torch\ny = x.cuda()\n")
    script = tmp_path / "venv" / "bin" / "torchperf-lint"
    result = subprocess.run([script, "--no-cache", "kernel.py"], capture_output=True, text=True, cwd=tmp_path)
    assert (result.returncode, result.stdout.splitlines()[0]) == (
        1,
        "kernel.py:2:5: TPL003 `.cuda()` moves work to a non-CPU device; routes are CPU-only by contract",
    ), result.stderr


def test_a_source_checkout_shadowing_the_installed_wheel_still_runs(wheel, tmp_path):
    """``python -m torchperf_lint`` in the repository root imports the source folder, not the
    installed package; the rule pack, mapped into the namespace only at build time, must still load."""
    python = fresh_venv(tmp_path / "venv")
    checked(python, "-m", "pip", "install", "--no-deps", "--no-index", "-q", wheel, cwd=tmp_path)
    command = [python, "-m", "torchperf_lint", "--no-cache", "-q", "examples/violations/router.py"]
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert (result.returncode, result.stderr) == (1, "")
    assert [line.split(" ")[1] for line in result.stdout.splitlines()] == ["TPL002", "TPL003", "TPL005", "TPL006"]


def test_editable_install_serves_the_same_names():
    lines = subprocess.run(
        [sys.executable, "-c", PROBE], check=True, capture_output=True, text=True, cwd=ROOT.parent
    )
    assert lines.stdout.split("\n")[1:3] == ["True", "(1, 2, 3, 4)"]


def test_the_plain_install_requires_no_language_server_packages(wheel):
    """``pip install .`` installs exactly the unconditional requirements: LibCST, Jinja2 and pathspec;
    pygls and lsprotocol come only with the ``server`` extra."""
    archive = zipfile.ZipFile(wheel)
    metadata = archive.read(next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    requires = [line.split(": ", 1)[1] for line in metadata.splitlines() if line.startswith("Requires-Dist: ")]

    def names(wanted: Callable[[str], bool]) -> list[str]:
        return sorted(re.match(r"[A-Za-z0-9._-]+", r).group() for r in requires if wanted(r))

    assert names(lambda r: "extra ==" not in r) == ["Jinja2", "libcst", "pathspec"]
    assert names(lambda r: 'extra == "server"' in r) == ["lsprotocol", "pygls"]
