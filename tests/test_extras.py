"""Without the ``kernels`` extra, the reference kernels say which extra to install, never a traceback."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

EXTRA = 'install the CPU build of torch first, then `pip install ".[kernels]"` in a checkout of torchperf-lint'


def without(modules: list[str], code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter where ``modules`` cannot be imported."""
    blocked = "".join(f"sys.modules[{name!r}] = None\n" for name in modules)
    return subprocess.run([sys.executable, "-c", f"import sys\n{blocked}{code}"], capture_output=True, text=True)


@pytest.mark.parametrize("missing", ["numpy", "torch"])
def test_the_kernels_name_the_extra_to_install(missing):
    result = without([missing], "from torchperf_lint.reference_kernels import warp_affine3d")
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == (
        f"ModuleNotFoundError: torchperf_lint.reference_kernels.warp_affine3d needs {missing}, "
        f"which the `kernels` extra installs: {EXTRA}"
    )


def test_dir_lists_the_public_kernels_without_importing_them():
    result = without(["torch", "numpy"], "import torchperf_lint.reference_kernels as rk; print(dir(rk))")
    assert result.returncode == 0, result.stderr
    listed = ast.literal_eval(result.stdout)
    assert {"warp_affine3d", "remap3d"} <= set(listed)


@pytest.mark.parametrize(
    "imported", ["", "import torchperf_lint.reference_kernels.api\n"], ids=["fresh", "loaded"]
)
def test_dir_lists_the_public_api_and_module_attributes_only(imported):
    code = f"{imported}import torchperf_lint.reference_kernels as rk\nprint(dir(rk))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    listed = ast.literal_eval(result.stdout)
    assert listed == sorted(listed)
    assert [name for name in listed if not (name.startswith("__") and name.endswith("__"))] == [
        "remap3d",
        "warp_affine3d",
    ]
    assert {"__all__", "__doc__", "__file__", "__name__", "__path__", "__spec__"} <= set(listed)


def test_the_benchmark_without_torch_says_what_to_install():
    code = (
        "import runpy\nsys.argv = ['bench', '--quick']\n"
        "runpy.run_module('torchperf_lint.reference_kernels.bench', run_name='__main__')"
    )
    result = without(["torch"], code)
    assert result.returncode == 2
    assert result.stderr == f"the benchmark needs torch, which the `kernels` extra installs: {EXTRA}\n"


def test_the_benchmark_help_needs_no_torch():
    code = (
        "import runpy\nsys.argv = ['bench', '--help']\n"
        "runpy.run_module('torchperf_lint.reference_kernels.bench', run_name='__main__')"
    )
    result = without(["torch", "numpy"], code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: python -m torchperf_lint.reference_kernels.bench")
    assert "--peers" in result.stdout and "--heap {default,cold,warm}" in result.stdout
