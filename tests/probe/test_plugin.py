"""The pytest plugin: registered by entry point, a ``probe`` fixture, and harmless without torch."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points

import pytest

KERNEL_TEST = """
import torch

def warp(volume):
    with torch.no_grad():
        return volume.permute(0, 2, 1).contiguous()

def test_budget(probe):
    report = probe(warp, torch.ones(2, 3, 4))
    assert report.allocated_bytes <= 96
    assert not report.inference_outputs

def test_over_budget(probe):
    assert probe(warp, torch.ones(2, 3, 4)) == probe(lambda v: v, torch.ones(2, 3, 4))

def test_without_the_fixture():
    assert True
"""


def run_pytest(folder, *, block_torch: bool) -> subprocess.CompletedProcess[str]:
    blocked = "sys.modules['torch'] = None\n" if block_torch else ""
    run = f"sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', {str(folder)!r}]))"
    code = f"import sys\n{blocked}import pytest\n{run}"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=folder)


def test_the_plugin_is_registered_as_a_pytest11_entry_point():
    assert [(e.name, e.value) for e in entry_points(group="pytest11") if e.name == "torchperf_probe"] == [
        ("torchperf_probe", "torchperf_lint.probe.plugin")
    ]


def test_the_fixture_probes_a_call_and_a_failed_comparison_shows_the_diff(tmp_path):
    pytest.importorskip("torch")
    (tmp_path / "test_kernel.py").write_text(KERNEL_TEST)
    result = run_pytest(tmp_path, block_torch=False)
    assert result.returncode == 1, result.stdout
    assert "2 passed, 1 failed" in result.stdout.splitlines()[-1] or "1 failed, 2 passed" in result.stdout
    assert "the probed calls differ:" in result.stdout
    assert "+1 full-size copy per call" in result.stdout


def test_without_torch_only_the_tests_using_the_fixture_are_skipped(tmp_path):
    (tmp_path / "test_kernel.py").write_text(KERNEL_TEST.replace("import torch\n", "torch = None\n"))
    result = run_pytest(tmp_path, block_torch=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1].startswith("1 passed, 2 skipped")
